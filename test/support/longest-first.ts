// The order files start in, within each group of lanes: the longest first, so that a group's last minutes
// are not one long file running alone while the other workers stand idle. Vitest orders by the durations
// of the last run it cached, which a clean clone (CI) does not have: these are the files that take
// longest, measured on a clean-clone run of `npm test` (seconds, 2 cores), longest first. The static
// checks come before their rank: their three processes take longer on a loaded machine than alone.
// The rest follow lane by lane. A file missing here only starts later; refresh the list when a group's
// end shows one file running alone.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const LONGEST_FILES = [
  'test/batch/large.test.ts', // 198 s
  'test/workflows/history-size.test.ts', // 160
  'test/static-checks.test.ts', // 104
  'test/package/pack-install.test.ts', // 115
  'test/admission/video-quota.test.ts', // 115
  'bench/test/soak.test.ts', // 109
  'test/admission/gate.test.ts', // 77
  'test/store/s3-store.test.ts', // 73
  'test/gateway/generate-and-poll.test.ts', // 61
  'test/cli/cli.test.ts', // 52
  'test/workflows/review-ambiguity.test.ts', // 51
  'test/admission/review-quota.test.ts', // 49
  'test/versioning/worker-deployment.test.ts', // 47
  'test/workflows/notify.test.ts', // 44
  'test/dev/local-stack.test.ts', // 42
  'test/workflows/create-ambiguity.test.ts', // 38
  'test/workflows/notify-crash.test.ts', // 36
  'test/workflows/lost-answer.test.ts', // 35
  'test/batch/batch.test.ts', // 33
  'test/workflows/happy-path.test.ts', // 31
  'test/python/caller.test.ts', // 31
  'test/workflows/worker-crash.test.ts', // 28
  'test/go/caller.test.ts', // 28
  'test/python/sdks.test.ts', // 27
  'test/admission/video-quota-backpressure.test.ts', // 27
  'test/workflows/cancel-and-callbacks.test.ts', // 26
  'test/store/file-store.test.ts', // 24
  'test/admission/gateway-slot.test.ts', // 23
  'test/admission/admitted-at-once.test.ts', // 21
  'test/processes.test.ts', // 20
  'test/admission/metrics.test.ts', // 20
  'test/codec/rotation.test.ts', // 19
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FILES.indexOf(relative(f.project.config.root, f.moduleId).split('\\').join('/'));
      return i === -1 ? LONGEST_FILES.length : i;
    };
    const groups = [...new Set(sorted.map((f) => f.project.config.sequence.groupOrder))].sort((a, b) => a - b);
    return groups.flatMap((group) => {
      // The lanes of one group share its pool: their files start longest first, whatever their lane.
      const files = sorted.filter((f) => f.project.config.sequence.groupOrder === group);
      const listed = files.filter((f) => rank(f) < LONGEST_FILES.length).sort((a, b) => rank(a) - rank(b));
      return [...listed, ...laneByLane(files.filter((f) => rank(f) === LONGEST_FILES.length))];
    });
  }
}

/**
 * The short files, a lane's files together (each lane's in Vitest's order), the lanes on the dev server
 * first and the unit lane last. Vitest keeps a worker of a lane (isolate: false) for the next file only if
 * that file is of the same lane; otherwise it stops the worker and starts another, which imports the SDK
 * again (about a second of a core each). Files of alternating lanes cost a new worker per file: 58 workers
 * for the 124 files of `unit` and `timers`, against 10 lane by lane. The unit files compute, so they end a
 * group with the cores busy rather than waiting on timers.
 */
function laneByLane(files: TestSpecification[]): TestSpecification[] {
  const lanes = [...new Set(files.map((f) => f.project.name))].map((name) =>
    files.filter((f) => f.project.name === name),
  );
  const withoutServer = (lane: TestSpecification[]) => (lane[0]?.project.config.globalSetup.length ? 0 : 1);
  return lanes.sort((a, b) => withoutServer(a) - withoutServer(b)).flat();
}
