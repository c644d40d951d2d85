// The module to give a worker as `workflowsPath` (or to bundle): every workflow of the package, and
// nothing that breaks the deterministic workflow sandbox.
export { ReviewThenGenerate } from './review-then-generate.js';
export { ReviewThenGenerateBatch } from './batch.js';
export { GenerateAndPoll } from './generate-and-poll.js';
