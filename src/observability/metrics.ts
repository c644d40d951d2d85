// The package's own metrics, recorded through the SDK's metric meter (Runtime.instance().metricMeter), so
// they leave on the same Prometheus endpoint as the SDK's. One prefix (`rtg_`), the unit in the name,
// `_total` on counters (countersTotalSuffix), and only bounded label values: service, endpoint (the
// client's operation name), status class, callback kind and reason. Never a task id, workflow id or URL.
import type { MetricMeter } from '@temporalio/common';
import type { RequestInfo } from '../services/http.js';

export const METRIC_PREFIX = 'rtg_';

/** Every metric this package exports (as Prometheus names them), for the docs, the dashboard and tests. */
export const METRIC_NAMES = {
  apiRequests: 'rtg_api_requests_total',
  httpDuration: 'rtg_http_request_duration_seconds',
  callbacksReceived: 'rtg_callbacks_received_total',
  callbacksConfirmed: 'rtg_callbacks_confirmed_total',
  callbacksRejected: 'rtg_callbacks_rejected_total',
  callbackSignalDuration: 'rtg_callback_signal_duration_seconds',
} as const;

/** Bucket bounds in seconds: from a fast local call to the 30 s default deadline. */
export const HTTP_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Counter names as registered (the exporter adds `_total`). */
const counter = (name: string) => name.replace(/_total$/, '');

/** `2xx`..`5xx` for a response, else what happened instead (`timeout`, `network_error`). */
export function statusClass(info: Pick<RequestInfo, 'status' | 'outcome'>): string {
  if (info.outcome === 'timeout') return 'timeout';
  if (info.status === undefined || info.outcome === 'network') return 'network_error';
  return `${Math.floor(info.status / 100)}xx`;
}

/** The worker's metrics of calls to the two services: give `observe` to observeServiceRequests. */
export function serviceRequestMetrics(meter: MetricMeter) {
  const requests = meter.createCounter(
    counter(METRIC_NAMES.apiRequests),
    '',
    'Calls to the video and review services, by service, endpoint and status class',
  );
  const duration = meter.createHistogram(
    METRIC_NAMES.httpDuration,
    'float',
    '',
    'Time of one call to a service, from sending to the end of the response body',
  );
  return {
    observe(info: RequestInfo): void {
      requests.add(1, { service: info.service, endpoint: info.operation, status_class: statusClass(info) });
      duration.record(info.durationMs / 1000, { service: info.service, endpoint: info.operation });
    },
  };
}

export type CallbackRejection =
  | 'bad_request'
  | 'not_found'
  | 'method_not_allowed'
  | 'bad_signature'
  | 'expired'
  | 'body_too_large'
  | 'workflow_not_found'
  | 'run_closed'
  | 'not_needed'
  | 'temporal_unavailable'
  | 'internal_error';

/** The receiver's metrics: every callback is received, then either confirmed (signalled) or rejected. */
export function callbackMetrics(meter: MetricMeter) {
  const received = meter.createCounter(
    counter(METRIC_NAMES.callbacksReceived),
    '',
    'Callback requests received, by kind',
  );
  const confirmed = meter.createCounter(
    counter(METRIC_NAMES.callbacksConfirmed),
    '',
    'Callbacks Temporal accepted as a signal, by kind',
  );
  const rejected = meter.createCounter(
    counter(METRIC_NAMES.callbacksRejected),
    '',
    'Callbacks not turned into a signal, by kind and reason',
  );
  const duration = meter.createHistogram(
    METRIC_NAMES.callbackSignalDuration,
    'float',
    '',
    'Time from receiving a callback to Temporal accepting its signal',
  );
  return {
    record(o: { kind?: string; status: number; outcome: string; durationMs: number }): void {
      const kind = o.kind ?? 'unknown';
      received.add(1, { kind });
      if (o.outcome === 'accepted') {
        confirmed.add(1, { kind });
        duration.record(o.durationMs / 1000, { kind });
      } else rejected.add(1, { kind, reason: rejectionReason(o.status, o.outcome) });
    },
  };
}

export function rejectionReason(status: number, outcome: string): CallbackRejection {
  // Signed for a run that is closed (or was replaced by a new run of the same workflow id), or unknown.
  if (outcome === 'ignored (run closed)') return 'run_closed';
  if (outcome.startsWith('ignored')) return 'workflow_not_found';
  // The run polls that task, or already knows it is still working (callbacks/forwarding.ts).
  if (outcome.startsWith('not needed')) return 'not_needed';
  switch (status) {
    case 401:
      return 'bad_signature';
    case 410:
      return 'expired';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'body_too_large';
    case 503:
      return 'temporal_unavailable';
    case 500:
      return 'internal_error';
    default:
      return 'bad_request';
  }
}
