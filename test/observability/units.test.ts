// The pure parts of observability: log lines, settings, metric labels. No server.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { rejectionReason, statusClass } from '../../src/observability/metrics.js';
import { loadDrainDelayMs, loadObservabilitySettings, splitHostPort } from '../../src/observability/settings.js';
import { tracingEnabled } from '../../src/observability/tracing.js';

function capture(level: 'debug' | 'info' | 'warn', format: 'json' | 'pretty') {
  const lines: string[] = [];
  return { lines, log: createLogger({ level, format, component: 'worker', write: (l) => lines.push(l) }) };
}

describe('logger', () => {
  it('writes one JSON object a line with time, level, component, msg and the meta at the top level', () => {
    const { lines, log } = capture('info', 'json');
    log.info('Activity completed', { workflowId: 'w1', workflowRunId: 'r1', activityType: 'rtgCreateVideoTask' });
    log.debug('hidden');
    log.warn('failed', { error: new TypeError('bad', { cause: new Error('root') }), big: 1n });
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({
      level: 'info',
      component: 'worker',
      msg: 'Activity completed',
      workflowId: 'w1',
      workflowRunId: 'r1',
      activityType: 'rtgCreateVideoTask',
    });
    expect(new Date(first.time as string).toISOString()).toBe(first.time);
    expect(JSON.parse(lines[1]!)).toMatchObject({
      level: 'warn',
      error: { type: 'TypeError', message: 'bad', cause: { type: 'Error', message: 'root' } },
      big: '1',
    });
  });

  it('writes a readable line in pretty format and honours the level', () => {
    const { lines, log } = capture('warn', 'pretty');
    log.info('no');
    log.error('worker: stopped', { code: 1 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} ERROR worker: worker: stopped code=1$/);
  });
});

describe('settings', () => {
  it('defaults to info, pretty on a terminal and JSON otherwise, metrics off', () => {
    expect(loadObservabilitySettings({}, true)).toEqual({
      logLevel: 'info',
      logFormat: 'pretty',
      prometheusBindAddress: undefined,
    });
    expect(loadObservabilitySettings({ LOG_LEVEL: 'DEBUG', PROMETHEUS_BIND_ADDRESS: '0.0.0.0:9464' }, false)).toEqual({
      logLevel: 'debug',
      logFormat: 'json',
      prometheusBindAddress: '0.0.0.0:9464',
    });
    expect(loadObservabilitySettings({ LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
  });

  it('names a bad variable without echoing its value', () => {
    expect(() => loadObservabilitySettings({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL must be trace/);
    expect(() => loadObservabilitySettings({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT must be json or pretty/);
    expect(() => loadObservabilitySettings({ PROMETHEUS_BIND_ADDRESS: 'http://x:1/s3cr3t' })).toThrow(
      /^invalid configuration: PROMETHEUS_BIND_ADDRESS must be host:port[^3]*$/,
    );
    expect(() => loadDrainDelayMs({ CALLBACK_DRAIN_DELAY_MS: '-1' })).toThrow(/CALLBACK_DRAIN_DELAY_MS/);
    expect(loadDrainDelayMs({})).toBe(0);
    expect(splitHostPort('[::]:9464')).toEqual({ host: '::', port: 9464 });
  });

  it('turns tracing on only with an OTLP endpoint', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_SERVICE_NAME: 'x' })).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });
});

describe('metric labels', () => {
  it('maps a call to a bounded status class', () => {
    expect(statusClass({ status: 202, outcome: 'response' })).toBe('2xx');
    expect(statusClass({ status: 503, outcome: 'response' })).toBe('5xx');
    expect(statusClass({ status: 200, outcome: 'malformed' })).toBe('2xx');
    expect(statusClass({ status: 200, outcome: 'timeout' })).toBe('timeout');
    expect(statusClass({ status: undefined, outcome: 'network' })).toBe('network_error');
  });

  it('maps a callback answer to a bounded rejection reason', () => {
    expect(rejectionReason(401, 'bad signature')).toBe('bad_signature');
    expect(rejectionReason(202, 'ignored')).toBe('workflow_not_found');
    expect(rejectionReason(202, 'ignored (run closed)')).toBe('run_closed');
    expect(rejectionReason(410, 'expired')).toBe('expired');
    expect(rejectionReason(202, 'not needed (polled)')).toBe('not_needed');
    expect(rejectionReason(413, 'body too large')).toBe('body_too_large');
    expect(rejectionReason(503, 'temporarily unavailable')).toBe('temporal_unavailable');
    expect(rejectionReason(400, 'body is not JSON')).toBe('bad_request');
  });
});
