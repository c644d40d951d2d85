// Upgrade safety (docs/upgrading.md): every committed golden history replays against the workflow bundle of
// the release that recorded it (histories/<version>/workflow-bundle.js.gz), and the sets of the releases
// listed in REPLAYED_AGAINST_CURRENT_CODE also against the current workflow code, so a change that would
// break a running job of a supported release fails here and names the file. The set of the current package
// version covers every path of GOLDEN_PATHS (a missing recording fails: `npm run record-golden`), and each
// file ended as its path says.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../support/stack.js';
import { endingOf, fromGoldenJson, readVersion, recordedVersions } from './history-file.js';
import { ALL_FAILURE_TYPES, FAILURE_TYPES_COVERED, GOLDEN_PATH_NAMES, GOLDEN_PATHS } from './paths.js';
import { readReleaseBundle, releaseBundlePath } from './release-bundle.js';

/**
 * The releases whose running jobs the current workflow code still finishes: their sets replay against it.
 * Always the current package version; an older release while the current code keeps its branches (the
 * patches of docs/upgrading.md). 0.3.0 rebuilt the waiting core (one RemoteTask per remote task) and
 * dropped 0.1.0 and 0.2.0 from this list rather than keep their code behind patches: their runs finish on
 * the build that started them (Worker Deployment versioning, PINNED; an unversioned deployment drains
 * first, CHANGELOG), and their sets keep replaying against their own release's bundle below.
 */
const REPLAYED_AGAINST_CURRENT_CODE = ['0.3.0'];

const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
  version: string;
};
const versions = recordedVersions();

describe('golden histories', () => {
  it('every public failure type ends at least one recorded path', () => {
    expect(ALL_FAILURE_TYPES.filter((t) => !FAILURE_TYPES_COVERED.has(t))).toEqual([]);
  });

  it(`the set of the current version (${pkg.version}) covers every path, each ending as its path says`, () => {
    expect(versions, `no histories recorded for ${pkg.version}: run npm run record-golden`).toContain(pkg.version);
    const files = readVersion(pkg.version);
    const recorded = files.map((f) => f.content.path);
    expect(
      GOLDEN_PATH_NAMES.filter((n) => !recorded.includes(n)),
      'paths not recorded',
    ).toEqual([]);
    for (const { file, content } of files) {
      expect(file).toBe(`${pkg.version}/${content.path}.json`);
      const path = GOLDEN_PATHS[content.path as keyof typeof GOLDEN_PATHS];
      expect(path, `${file}: not a path of GOLDEN_PATHS`).toBeDefined();
      expect({ file, workflowType: content.workflowType, ended: endingOf(content.history) }).toEqual({
        file,
        workflowType: path.workflowType,
        ended: path.ends,
      });
    }
  });

  it('the releases replayed against the current code have sets, the current version among them', () => {
    expect(
      REPLAYED_AGAINST_CURRENT_CODE.filter((v) => !versions.includes(v)),
      'listed, not recorded',
    ).toEqual([]);
    expect(REPLAYED_AGAINST_CURRENT_CODE, 'the current code is the current version: its set replays').toContain(
      pkg.version,
    );
  });

  it.each(versions)('every history recorded by %s replays against its own release bundle', async (version) => {
    const code = readReleaseBundle(version);
    if (code === undefined)
      expect.fail(
        `${version} has no workflow bundle (${releaseBundlePath(version)}): run npm run record-golden -- --bundle-only ` +
          `(from a worktree of ${version}'s commit for a release that is out: add --from <worktree>)`,
      );
    await expectReplays(version, { code }, `the ${version} bundle`);
  });

  it.each(REPLAYED_AGAINST_CURRENT_CODE)(
    'every history recorded by %s replays against the current workflow code',
    async (version) => {
      await expectReplays(version, workflowBundle(), 'the current code');
    },
  );
});

/** Every history of `version` replays against `bundle`; a failure names the file and the core's reason. */
async function expectReplays(version: string, bundle: WorkflowBundleOption, against: string): Promise<void> {
  const files = readVersion(version);
  expect(files.length).toBeGreaterThan(0);
  const histories = files.map(({ content }) => ({
    workflowId: content.workflowId,
    history: fromGoldenJson(content.history),
  }));
  // One replay worker for the whole set; results come back one per history, in order.
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) {
    // The core's own line ("[TMPRL1100] Nondeterminism error: ...") says what differs; the rest is boilerplate.
    const why = result.error && (/\[TMPRL\d+\][^"]*/.exec(String(result.error))?.[0] ?? String(result.error));
    if (why) failures.push(`${files[replayed]!.file}: ${why}`);
    replayed++;
  }
  expect(replayed).toBe(files.length);
  expect(failures, `nondeterministic against ${against}:\n${failures.join('\n')}`).toEqual([]);
}
