// Per test file: quiet SDK logs and a fixed fast-check seed.
// Keep test output readable: the SDK logs every expected activity and workflow failure as a warning.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import fc from 'fast-check';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed in this process (vitest may reuse a fork between files).
}

// Property tests run on one fixed seed, so `npm test` (and CI) asserts the same cases every time; explore
// with FC_SEED=<n> or FC_SEED=random. On failure fast-check prints the seed that reproduces it.
const seed = process.env.FC_SEED === 'random' ? undefined : Number(process.env.FC_SEED ?? 20261122);
if (seed !== undefined && !Number.isInteger(seed))
  throw new Error(`FC_SEED: must be an integer or "random" (got ${process.env.FC_SEED})`);
fc.configureGlobal(seed === undefined ? {} : { seed });
