// HTTP inspection/scripting API under /__sandbox/ on both ports, so a standalone sandbox (npm run sandbox)
// can be driven and inspected without code. No auth and no request-log entries: it is not part of the
// emulated services.
import { z } from 'zod';
import { callbackFaultRuleSchema, faultRuleSchema } from './faults.js';
import { quotaUpdateSchema } from './quota-options.js';
import { errorReply, type Reply } from './reply.js';
import type { InspectHandler } from './server.js';
import type { CallbackFaultRule, FaultRule, QuotaUpdate, Sandbox } from './types.js';
import { describeIssues, fieldPath } from './validation.js';

const verdictSchema = z.object({
  url: z.string().min(1),
  verdict: z.object({ passed: z.boolean(), errorCode: z.string().optional(), errorMessage: z.string().optional() }),
});
const reviewOutcomeSchema = z.object({
  match: z.object({ url: z.string().min(1) }),
  outcome: z.enum(['completed', 'failed', 'cancelled']),
  durationMs: z.number().min(0).optional(),
});
const videoOutcomeSchema = z.object({
  match: z.object({ model: z.string().optional(), promptIncludes: z.string().optional() }),
  outcome: z.enum(['succeeded', 'failed', 'expired', 'cancelled']),
  durationMs: z.number().min(0).optional(),
});

const ok = (json: unknown = { ok: true }): Reply => ({ status: 200, json });

/** Accepts `{ rule: {...} }` or the rule itself. */
function parse<T>(schema: z.ZodType<T>, body: unknown, wrapped: boolean): { value: T } | { reply: Reply } {
  const input =
    wrapped && typeof body === 'object' && body !== null && 'rule' in body ? (body as { rule: unknown }).rule : body;
  const r = schema.safeParse(input);
  if (r.success) return { value: r.data };
  const issues = r.error.issues.map((i) => ({ field: fieldPath(i.path), rule: i.message }));
  return { reply: errorReply(400, 'invalid_request', describeIssues(issues), { issues }) };
}

export function createInspectHandler(sandbox: Sandbox): InspectHandler {
  return async (method, url, body) => {
    const path = url.pathname.replace(/^\/__sandbox/, '');
    if (method === 'GET') {
      if (path === '/requests') return ok(sandbox.requests());
      if (path === '/callbacks') return ok(sandbox.callbacks());
      if (path === '/video-tasks') return ok(sandbox.videoTasks());
      if (path === '/review-tasks') return ok(sandbox.reviewTasks());
      if (path === '/info') return ok({ videoBaseUrl: sandbox.videoBaseUrl, reviewBaseUrl: sandbox.reviewBaseUrl });
      if (path === '/quotas') return ok({ limits: sandbox.quotas(), stats: sandbox.quotaStats() });
    }
    if (method === 'POST') {
      if (path === '/reset') {
        sandbox.reset();
        return ok();
      }
      if (path === '/faults') {
        const r = parse(faultRuleSchema, body, true);
        if ('reply' in r) return r.reply;
        sandbox.addFault(r.value as FaultRule);
        return ok();
      }
      if (path === '/quotas') {
        const r = parse(quotaUpdateSchema, body, false);
        if ('reply' in r) return r.reply;
        sandbox.setQuotas(r.value as QuotaUpdate);
        return ok({ limits: sandbox.quotas() });
      }
      if (path === '/callback-faults') {
        const r = parse(callbackFaultRuleSchema, body, true);
        if ('reply' in r) return r.reply;
        sandbox.setCallbackFault(r.value as CallbackFaultRule);
        return ok();
      }
      if (path === '/review-verdicts') {
        const r = parse(verdictSchema, body, false);
        if ('reply' in r) return r.reply;
        sandbox.setReviewVerdict(r.value.url, r.value.verdict);
        return ok();
      }
      if (path === '/review-outcomes') {
        const r = parse(reviewOutcomeSchema, body, false);
        if ('reply' in r) return r.reply;
        sandbox.setReviewTaskOutcome(r.value.match, r.value.outcome, r.value.durationMs);
        return ok();
      }
      if (path === '/video-outcomes') {
        const r = parse(videoOutcomeSchema, body, false);
        if ('reply' in r) return r.reply;
        sandbox.setVideoOutcome(r.value.match, r.value.outcome, r.value.durationMs);
        return ok();
      }
      const cancel = /^\/review-tasks\/([^/]+)\/cancel$/.exec(path);
      if (cancel) {
        try {
          sandbox.cancelReviewTask(decodeURIComponent(cancel[1] ?? ''));
          return ok();
        } catch (err) {
          return errorReply(404, 'task_not_found', err instanceof Error ? err.message : String(err));
        }
      }
    }
    return errorReply(404, 'not_found', `${method} /__sandbox${path} is not part of the inspection API`);
  };
}
