// The Go caller of docs/starting-jobs.md (examples/go: Temporal's Go SDK, pinned by its go.mod and go.sum),
// built by scripts/go-caller.mjs (modules from the Go module proxy; the binary kept in .tmp/go-caller/ per
// content of the example, so a repeated run does not build again) and run as a subprocess against the dev
// server, encryption off and on (the caller's own codec in Go, examples/go/codec.go): what it checks is in
// test/python/caller-harness.ts, shared with the Python caller's test. The codec's edges are the example's
// own `go test`, run here too.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeCaller } from '../python/caller-harness.js';

const script = fileURLToPath(new URL('../../scripts/go-caller.mjs', import.meta.url));
const goCaller = (flag: string) => promisify(execFile)(process.execPath, [script, flag], { timeout: 900_000 });

let binary: string;
beforeAll(async () => {
  binary = (await goCaller('--print-path')).stdout.trim();
}, 900_000);

describe('the Go caller codec', () => {
  it('passes its own go test: round trip, the keys as the package reads them, refusals, pass-through', async () => {
    const { stdout } = await goCaller('--go-test');
    expect(stdout).toMatch(/^ok\s+temporal-review-video\/examples\/go\/caller\s/m);
  }, 900_000);
});

describeCaller({
  name: 'Go',
  prefix: 'go',
  command: (input, key, cancelAtStage) => ({
    file: binary,
    args: ['--key', key, ...(cancelAtStage ? ['--cancel-at-stage', cancelAtStage] : []), input],
  }),
  repeatedStart: 'reads the first run',
});
