// Per test file, in both vitest projects: a fixed fast-check seed.
// Property tests run on one fixed seed, so `npm test` (and CI) asserts the same cases every time; explore
// with FC_SEED=<n> or FC_SEED=random. On failure fast-check prints the seed that reproduces it.
import fc from 'fast-check';

const seed = process.env.FC_SEED === 'random' ? undefined : Number(process.env.FC_SEED ?? 20261122);
if (seed !== undefined && !Number.isInteger(seed))
  throw new Error(`FC_SEED: must be an integer or "random" (got ${process.env.FC_SEED})`);
fc.configureGlobal(seed === undefined ? {} : { seed });
