// The module to give a worker as `workflowsPath` (or to bundle): every workflow of the package, and
// nothing that breaks the deterministic workflow sandbox.
export { ReviewThenGenerate } from './review-then-generate.js';
export { ReviewThenGenerateBatch } from './batch.js';
export { GenerateAndPoll } from './generate-and-poll.js';
// The delivery of one notification of a job (docs/webhooks.md), started by the job as an abandoned child.
export { ReviewThenGenerateNotification } from './notification.js';
// Groundwork for quotas (issue 26): one gate per quota key; no job asks it for a slot yet.
export { AdmissionGate } from './admission/gate.js';
