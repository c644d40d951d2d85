// Outgoing webhooks (issue 27, docs/webhooks.md), the worker's side: notifyTarget, which tells a run at its
// start where its notifications go under this worker's rules (asked by rtgCheckJobNeeds, job-needs.ts, with
// the job's other needs), and rtgDeliverNotification, one signed POST per attempt. Retries are the delivery workflow's RetryPolicy (src/workflows/notification.ts), bounded by
// its window: an attempt that fails throws, and Temporal schedules the next one with backoff.
import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import { request } from 'undici';
import { containsSignedCallbackUrl } from '../callback-signing.js';
import type { NotifySettings } from '../config/notify.js';
import type {
  DeliveryInput,
  DeliveryResult,
  NotifyActivities,
  NotifyTargetInput,
  NotifyTargetResult,
} from '../contract/notify.js';
import { NOTIFY_WINDOW } from '../model/notify.js';
import { isHttpUrl, nonPublicUrlReason } from '../model/url-rules.js';
import { signNotification } from '../notify/signing.js';
import { redactCallbackUrls } from './redact-callback-urls.js';

/** Deadline of one attempt's HTTP call (Standard Webhooks asks receivers to answer within 15 s). */
export const NOTIFY_TIMEOUT_MS = 15_000;

export const NOTIFY_METRIC_NAMES = {
  attempts: 'rtg_notification_attempts_total',
} as const;

const meters = new WeakMap<MetricMeter, ReturnType<MetricMeter['createCounter']>>();
function attemptsCounter(meter: MetricMeter) {
  let c = meters.get(meter);
  if (!c) {
    c = meter.createCounter(
      NOTIFY_METRIC_NAMES.attempts.replace(/_total$/, ''),
      '',
      'Notification delivery attempts, by event and outcome (2xx..5xx, timeout, network_error, refused)',
    );
    meters.set(meter, c);
  }
  return c;
}

/** A text that holds a signed callback URL is blanked out; `callback_url` fields are redacted as in history. */
function scrub(value: unknown): unknown {
  if (typeof value === 'string') return containsSignedCallbackUrl(value) ? '[redacted]' : value;
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v)]));
  return value;
}

/** Why a URL may not be called from this worker, or undefined. */
function urlProblem(url: string, allowPrivateUrls: boolean): string | undefined {
  if (!isHttpUrl(url)) return 'must be a public http(s) URL';
  const reason = nonPublicUrlReason(url, { allowPrivateUrls });
  return reason
    ? `must be a public http(s) URL (${reason}); the worker accepts private ones only with ALLOW_PRIVATE_URLS=true`
    : undefined;
}

const noSecret: NotifyTargetResult = {
  ok: false,
  problem: { field: 'notify', rule: 'cannot be sent by this worker: it has no NOTIFY_SECRET to sign with' },
};

/** `settings` as they are now (a test may change them between jobs). */
function current(settings: NotifySettings) {
  return {
    allow: settings.allowPrivateUrls === true,
    windowMs: settings.windowMs ?? NOTIFY_WINDOW.defaultMs,
    timeoutMs: settings.timeoutMs ?? NOTIFY_TIMEOUT_MS,
    secrets: settings.secrets && settings.secrets.length > 0 ? settings.secrets : undefined,
  };
}

/** Where a job's notifications go under this worker's settings, or why its `notify` is refused (the field). */
export function notifyTarget(input: NotifyTargetInput, settings: NotifySettings = {}): NotifyTargetResult {
  const { allow, windowMs, secrets } = current(settings);
  if (input.url === undefined) {
    if (!settings.url)
      return {
        ok: false,
        problem: { field: 'notify.url', rule: 'is required: this worker has no NOTIFY_URL to send to instead' },
      };
    if (!secrets) return noSecret;
    return { ok: true, target: { source: 'worker', windowMs: input.windowMs ?? windowMs } };
  }
  const problem = urlProblem(input.url, allow);
  if (problem) return { ok: false, problem: { field: 'notify.url', rule: `${input.url} ${problem}` } };
  if (!secrets) return noSecret;
  return { ok: true, target: { source: 'job', windowMs: input.windowMs ?? windowMs } };
}

/** The delivery activity on `settings`, read at each call (a test may change them between jobs). */
export function createNotifyActivities(settings: NotifySettings = {}): NotifyActivities {
  return {
    async rtgDeliverNotification(input: DeliveryInput): Promise<DeliveryResult> {
      const { allow, timeoutMs, secrets } = current(settings);
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const event = input.payload.data.event;
      const counted = (outcome: string) => attemptsCounter(ctx.metricMeter).add(1, { event, outcome });
      const url = input.url ?? settings.url;
      const refused = !url
        ? 'the job gave no notify.url and this worker has no NOTIFY_URL'
        : urlProblem(url, allow)
          ? `notify.url ${urlProblem(url, allow)!}`
          : !secrets
            ? 'this worker has no NOTIFY_SECRET to sign with'
            : undefined;
      if (refused || !url || !secrets) {
        counted('refused');
        return { delivered: false, refused: refused ?? 'refused', attempt };
      }
      const body = JSON.stringify(scrub(redactCallbackUrls(input.payload)));
      const headers = signNotification(secrets, input.id, Date.now() / 1000, body);
      let status: number;
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'temporal-review-video', ...headers },
          body,
          signal: AbortSignal.any([ctx.cancellationSignal, AbortSignal.timeout(timeoutMs)]),
        });
        status = res.statusCode;
        await res.body.dump();
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || /timeout/i.test(err.name));
        counted(timedOut ? 'timeout' : 'network_error');
        const why = timedOut ? `no answer within ${timeoutMs} ms` : err instanceof Error ? err.message : String(err);
        throw new Error(`attempt ${attempt}: ${why}`, { cause: err });
      }
      counted(`${Math.floor(status / 100)}xx`);
      if (status >= 200 && status < 300) return { delivered: true, status, attempt };
      throw new Error(`attempt ${attempt}: the receiver answered HTTP ${status}`);
    },
  };
}
