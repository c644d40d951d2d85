// The module to give a worker as `workflowsPath` (or to bundle): every workflow of the package, and
// nothing that breaks the deterministic workflow sandbox.
export { ReviewThenGenerate } from './review-then-generate.js';
export { ReviewThenGenerateBatch } from './batch.js';
export { GenerateAndPoll } from './generate-and-poll.js';
// The delivery of one notification of a job (docs/webhooks.md), started by the job as an abandoned child.
export { ReviewThenGenerateNotification } from './notification.js';
// One gate per quota key (docs/operations.md#provider-quotas): the creates and submits ask it for a slot.
export { AdmissionGate } from './admission/gate.js';
