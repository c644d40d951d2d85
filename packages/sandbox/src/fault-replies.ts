// The answers of the `status` and `malformed` request faults (faults.ts decides which request gets one).
import type { Reply } from './reply.js';
import type { FaultRule } from './types.js';

export function statusFaultReply(
  f: Extract<FaultRule['fault'], { type: 'status' }>,
  taskId: string | undefined,
  requestBody: unknown,
): Reply {
  const error = { code: `http_${f.status}`, message: `sandbox fault: HTTP ${f.status}` };
  // echo: a server that quotes the request it refuses (or accepts, like the async review answer that
  // echoes callback_url), so a test can see that nothing it quotes reaches history.
  const json = f.echo ? { error, request: requestBody } : (f.body ?? { error });
  const reply: Reply = { status: f.status, json };
  if (f.retryAfter !== undefined) reply.headers = { 'retry-after': f.retryAfter };
  if (taskId !== undefined) reply.taskId = taskId;
  return reply;
}

export function malformedReply(rule: FaultRule, reply: Reply | undefined): Reply {
  const ok =
    reply && reply.status >= 200 && reply.status < 300
      ? reply.status
      : rule.operation === 'review.submitAsync'
        ? 202
        : 200;
  // Looks like JSON, cut short: what a proxy that dropped the connection mid-body leaves behind.
  return { status: ok, text: '{"sandbox": "malformed', contentType: 'application/json' };
}
