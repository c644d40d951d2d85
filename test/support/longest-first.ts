// The order files start in, within each lane: the longest first, so that a lane's last minutes are not one
// long file running alone while the other workers stand idle. Vitest orders by the durations of the last
// run it cached, which a clean clone (CI) does not have: these are the files that take longest, measured on
// a clean-clone run of `npm test` (seconds, 2 cores), longest first. The rest follow in Vitest's own order.
// A file missing here only starts later; refresh the list when a lane's end shows one file running alone.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const LONGEST_FILES = [
  'test/batch/large.test.ts', // 199 s
  'bench/test/soak.test.ts', // 123
  'test/workflows/history-size.test.ts', // 122
  'test/admission/video-quota.test.ts', // 118
  'test/cli/cli.test.ts', // 64
  'test/package/pack-install.test.ts', // 63
  'test/admission/review-quota.test.ts', // 57
  'test/dev/local-stack.test.ts', // 50
  'test/versioning/worker-deployment.test.ts', // 39
  'test/workflows/notify-crash.test.ts', // 35
  'test/workflows/review-ambiguity.test.ts', // 35
  'test/admission/gate.test.ts', // 33
  'test/workflows/worker-crash.test.ts', // 31
  'test/go/caller.test.ts', // 31
  'test/gateway/generate-and-poll.test.ts', // 30
  'test/store/s3-store.test.ts', // 29
  'test/workflows/notify.test.ts', // 28
  'test/workflows/create-ambiguity.test.ts', // 26
  'test/processes.test.ts', // 24
  'test/workflows/happy-path.test.ts', // 23
  'test/codec/rotation.test.ts', // 23
  'test/store/file-store.test.ts', // 21
  'test/python/caller.test.ts', // 21
  'test/workflows/lost-answer.test.ts', // 20
  'test/admission/gateway-slot.test.ts', // 20
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FILES.indexOf(relative(f.project.config.root, f.moduleId).split('\\').join('/'));
      return i === -1 ? LONGEST_FILES.length : i;
    };
    // Stable: lanes (groupOrder, project) keep Vitest's order, and so do the files of equal rank.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => {
        const pa = a.f.project;
        const pb = b.f.project;
        const lane =
          pa.config.sequence.groupOrder - pb.config.sequence.groupOrder ||
          (pa.name < pb.name ? -1 : pa.name > pb.name ? 1 : 0);
        return lane || rank(a.f) - rank(b.f) || a.i - b.i;
      })
      .map(({ f }) => f);
  }
}
