// startSandbox(): both emulated services on their own ports, wired to one request log, one fault book,
// one callback dispatcher and one asset registry, with the scripting API tests use.
import { randomBytes } from 'node:crypto';
import { AssetRegistry } from './assets.js';
import { CallbackDispatcher } from './callbacks.js';
import type { ResolvedOptions, ServiceContext } from './context.js';
import { FaultBook } from './faults.js';
import { createInspectHandler } from './inspect.js';
import { checkQuotaUpdate, quotaOptionsOf } from './quota-options.js';
import { QuotaBook } from './quotas.js';
import { ReviewService } from './review-service.js';
import { Scheduler } from './scheduler.js';
import { RequestLog } from './request-log.js';
import { createServiceServer, listen, stop, type InspectHandler } from './server.js';
import type { Sandbox, SandboxOptions } from './types.js';
import { VideoService } from './video-service.js';

function resolveOptions(o: SandboxOptions): ResolvedOptions {
  return {
    host: o.host ?? '127.0.0.1',
    videoPort: o.videoPort ?? 0,
    reviewPort: o.reviewPort ?? 0,
    apiKey: o.apiKey ?? `sk-sandbox-${randomBytes(12).toString('hex')}`,
    accessToken: o.accessToken ?? `at-sandbox-${randomBytes(12).toString('hex')}`,
    reviewDurationMs: o.reviewDurationMs ?? 300,
    videoDurationMs: o.videoDurationMs ?? 500,
    latencyMs: o.latencyMs ?? 0,
    cancelMethod: (o.cancelMethod ?? 'POST').toUpperCase(),
    cancelPath: o.cancelPath ?? '/v1/task/cancel/{id}',
    assetUrlTtlMs: o.assetUrlTtlMs ?? 600_000,
    syncReviewWaitMs: o.syncReviewWaitMs ?? 30_000,
    callbackTimeoutMs: o.callbackTimeoutMs ?? 3_000,
    reviewCompletedCode: o.reviewCompletedCode ?? 200,
    allowPrivateUrls: o.allowPrivateUrls ?? false,
    reviewProcessingRetryAfter: o.reviewProcessingRetryAfter,
    videoFileBytes: o.videoFileBytes ?? 1024 * 1024,
    videoUrlTtlMs: o.videoUrlTtlMs ?? 3_600_000,
  };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const opts = resolveOptions(options);
  if (!opts.cancelPath.startsWith('/') || !opts.cancelPath.includes('{id}')) {
    throw new Error(`cancelPath must start with / and contain {id} (got ${opts.cancelPath})`);
  }
  const scheduler = new Scheduler();
  const ctx: ServiceContext = {
    options: opts,
    scheduler,
    callbacks: new CallbackDispatcher(scheduler, opts.callbackTimeoutMs),
    assets: new AssetRegistry(),
    quotas: new QuotaBook(quotaOptionsOf(options)),
    baseUrls: { video: '', review: '' },
  };
  const log = new RequestLog();
  const faults = new FaultBook();
  const video = new VideoService(ctx);
  const review = new ReviewService(ctx);

  // The inspection API needs the finished Sandbox object; the servers only call it once requests arrive.
  let inspect: InspectHandler = async () => ({
    status: 503,
    json: { error: { code: 'starting', message: 'sandbox starting' } },
  });
  const deps = {
    log,
    faults,
    scheduler,
    latencyMs: opts.latencyMs,
    inspect: (m: string, u: URL, b: unknown) => inspect(m, u, b),
  };
  const videoServer = createServiceServer(video, deps);
  const reviewServer = createServiceServer(review, deps);
  const urlHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  try {
    ctx.baseUrls.video = `http://${urlHost}:${await listen(videoServer, opts.host, opts.videoPort)}`;
    ctx.baseUrls.review = `http://${urlHost}:${await listen(reviewServer, opts.host, opts.reviewPort)}`;
  } catch (err) {
    await Promise.all([stop(videoServer), stop(reviewServer)].map((p) => p.catch(() => undefined)));
    await ctx.callbacks.close();
    scheduler.close();
    throw err;
  }

  let closed: Promise<void> | undefined;
  const sandbox: Sandbox = {
    videoBaseUrl: ctx.baseUrls.video,
    reviewBaseUrl: ctx.baseUrls.review,
    apiKey: opts.apiKey,
    accessToken: opts.accessToken,
    requests: () => log.list(),
    callbacks: () => ctx.callbacks.log(),
    videoTasks: () => video.summaries(),
    reviewTasks: () => review.summaries(),
    addFault: (rule) => faults.add(rule),
    setReviewVerdict: (url, verdict) => review.setVerdict(url, verdict),
    setReviewTaskOutcome: (match, outcome, durationMs) => review.setOutcome(match.url, outcome, durationMs),
    setVideoOutcome: (match, outcome, durationMs) => video.setOutcome(match, outcome, durationMs),
    setCallbackFault: (rule) => ctx.callbacks.addFault(rule),
    setVideoFileFault: (fault) => video.files.addFault(fault),
    expireVideoUrls: () => video.files.expireAll(),
    cancelReviewTask: (taskId) => review.cancel(taskId),
    setQuotas: (update) => ctx.quotas.set(checkQuotaUpdate(update)),
    quotas: () => ctx.quotas.current(),
    quotaStats: () => ctx.quotas.stats({ video: opts.apiKey, review: opts.accessToken }),
    reset: () => {
      video.reset();
      review.reset();
      faults.clear();
      log.clear();
      ctx.callbacks.reset();
      ctx.assets.clear();
      ctx.quotas.reset();
    },
    close: () => {
      closed ??= (async () => {
        scheduler.close();
        await Promise.all([stop(videoServer), stop(reviewServer), ctx.callbacks.close()]);
      })();
      return closed;
    },
  };
  inspect = createInspectHandler(sandbox);
  return sandbox;
}
