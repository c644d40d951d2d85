// The sandbox's public face: start it, read and script it, audit its request log.
export type * from './types.js';
export { auditRequestLog, AUDIT_RULES, type AuditOptions } from './audit.js';
export { startSandbox } from './start.js';
export {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookFault,
  type WebhookReceiver,
} from './webhook-receiver.js';
