// Upgrade safety (docs/upgrading.md): every committed golden history, of this release and of every earlier
// one, replays against the current workflow bundle, so a change that would break a running job of any
// release fails here and names the file. The set of the current package version covers every path of
// GOLDEN_PATHS (a missing recording fails: `npm run record-golden`), and each file ended as its path says.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../support/stack.js';
import { endingOf, fromGoldenJson, readVersion, recordedVersions } from './history-file.js';
import { ALL_FAILURE_TYPES, FAILURE_TYPES_COVERED, GOLDEN_PATH_NAMES, GOLDEN_PATHS } from './paths.js';

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

  it.each(versions)('every history recorded by %s replays against the current workflow code', async (version) => {
    const files = readVersion(version);
    expect(files.length).toBeGreaterThan(0);
    const histories = files.map(({ content }) => ({
      workflowId: content.workflowId,
      history: fromGoldenJson(content.history),
    }));
    // One replay worker for the whole set; results come back one per history, in order.
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      // The core's own line ("[TMPRL1100] Nondeterminism error: ...") says what differs; the rest is boilerplate.
      const why = result.error && (/\[TMPRL\d+\][^"]*/.exec(String(result.error))?.[0] ?? String(result.error));
      if (why) failures.push(`${files[replayed]!.file}: ${why}`);
      replayed++;
    }
    expect(replayed).toBe(files.length);
    expect(failures, `nondeterministic against the current code:\n${failures.join('\n')}`).toEqual([]);
  });
});
