// From settings to activities: the one path from configuration (the environment, or explicit objects) to
// the two service clients, the callback settings and the activities built on them. Our worker, the plugin
// and users' own workers all go through it, so a default or a check lives in one place (src/config/).
import { loadAdmissionConfig, type AdmissionSettings } from '../config/admission.js';
import { loadCallbackConfig } from '../config/callbacks.js';
import { loadNotifyConfig, type NotifySettings } from '../config/notify.js';
import { loadServicesConfig, SERVICE_DEFAULTS } from '../config/services.js';
import { type CallbackConfig, type ReviewServiceConfig, type VideoServiceConfig } from '../config/types.js';
import { mixedBaseUrlsProblem } from '../config/base-urls.js';
import { ReviewClient } from '../services/review/client.js';
import { createVideoStore, loadVideoStoreConfig } from '../store/index.js';
import type { VideoStoreConfig } from '../config/types.js';
import { VideoClient } from '../services/video/client.js';
import type { Activities } from '../contract/index.js';
import { createActivities, type CallbackSettings } from './review-then-generate.js';

type Env = Record<string, string | undefined>;

/** Explicit service settings; the optional fields take the same defaults as the environment variables. */
export interface ServicesConfig {
  video: Pick<VideoServiceConfig, 'baseUrl' | 'apiKey'> & Partial<Omit<VideoServiceConfig, 'baseUrl' | 'apiKey'>>;
  review: Pick<ReviewServiceConfig, 'baseUrl' | 'accessToken'> &
    Partial<Omit<ReviewServiceConfig, 'baseUrl' | 'accessToken'>>;
}

/** Everything the activities need to be built: the services, and where callbacks arrive (none = polling). */
export interface ActivitySettings {
  services: ServicesConfig;
  callbacks?: CallbackSettings | undefined;
  /** VIDEO_STORE: where jobs with `store: true` copy their video; undefined = nowhere. */
  store?: VideoStoreConfig | undefined;
  /** NOTIFY_*: where and how jobs' notifications are sent (docs/webhooks.md); undefined = none can be. */
  notify?: NotifySettings | undefined;
  /** VIDEO_MAX_TASKS_IN_FLIGHT...: the provider's limits, enforced across workers (docs/operations.md). */
  admission?: AdmissionSettings | undefined;
}

export interface ServiceClients {
  video: VideoClient;
  review: ReviewClient;
  /** Closes both clients' connection pools (call it after the worker stopped). */
  close(): Promise<void>;
}

/** The activities with the clients they were built on; `close()` once no worker runs them any more. */
export interface ActivityWiring {
  /** Register these in `Worker.create({ activities: { ...activities, ...yourOwn } })`, or use the plugin. */
  activities: Activities;
  clients: ServiceClients;
  callbacks: CallbackSettings | undefined;
  close(): Promise<void>;
}

/** Callbacks need both a public address and a secret (config.ts refuses an address without one). */
function callbackSettings(c: Pick<CallbackConfig, 'publicUrl' | 'secret'>): CallbackSettings | undefined {
  return c.publicUrl && c.secret ? { publicUrl: c.publicUrl, secret: c.secret } : undefined;
}

/**
 * Reads VIDEO_* (VIDEO_STORE included), REVIEW_*, HTTP_TIMEOUT_MS, HTTP_MAX_CONNECTIONS, CALLBACK_PUBLIC_URL, CALLBACK_SECRET,
 * NOTIFY_*, the quota variables (config/admission.ts) and ALLOW_PRIVATE_URLS (design: configuration) from `env`, only when called. Throws ConfigError naming the
 * variable at fault, never its value.
 */
export function activitySettingsFromEnv(env: Env = process.env): ActivitySettings {
  const services = loadServicesConfig(env);
  return {
    services,
    callbacks: callbackSettings(loadCallbackConfig(env)),
    store: loadVideoStoreConfig(env),
    notify: loadNotifyConfig(env),
    admission: loadAdmissionConfig(env, { video: services.video.baseUrl, review: services.review.baseUrl }),
  };
}

/** Throws TypeError when the two base addresses are one (src/config/base-urls.ts), before any pool is made. */
export function createClients(config: ServicesConfig): ServiceClients {
  const mixed = mixedBaseUrlsProblem(
    { field: 'video.baseUrl', url: config.video.baseUrl },
    { field: 'review.baseUrl', url: config.review.baseUrl },
  );
  if (mixed) throw new TypeError(mixed);
  const video = new VideoClient({
    baseUrl: config.video.baseUrl,
    apiKey: config.video.apiKey,
    cancelMethod: config.video.cancelMethod ?? SERVICE_DEFAULTS.cancelMethod,
    cancelPath: config.video.cancelPath ?? SERVICE_DEFAULTS.cancelPath,
    timeoutMs: config.video.timeoutMs ?? SERVICE_DEFAULTS.timeoutMs,
    connections: config.video.connections ?? SERVICE_DEFAULTS.connections,
    allowPrivateUrls: config.video.allowPrivateUrls ?? false,
  });
  const review = new ReviewClient({
    baseUrl: config.review.baseUrl,
    accessToken: config.review.accessToken,
    timeoutMs: config.review.timeoutMs ?? SERVICE_DEFAULTS.timeoutMs,
    connections: config.review.connections ?? SERVICE_DEFAULTS.connections,
    allowPrivateUrls: config.review.allowPrivateUrls ?? false,
  });
  return {
    video,
    review,
    close: async () => {
      await Promise.allSettled([video.close(), review.close()]);
    },
  };
}

/** New clients from the settings, and the activities on them. */
export function wireActivities(settings: ActivitySettings): ActivityWiring {
  const clients = createClients(settings.services);
  const store = settings.store ? createVideoStore(settings.store) : undefined;
  const activities = createActivities({
    video: clients.video,
    review: clients.review,
    callbacks: settings.callbacks,
    store,
    admission: settings.admission,
    notify: settings.notify,
  });
  const close = async () => {
    await Promise.allSettled([clients.close(), store?.close()]);
  };
  return { activities, clients, callbacks: settings.callbacks, close };
}

/** `wireActivities(activitySettingsFromEnv(env))`: the activities configured from the environment. */
export function activitiesFromEnv(env: Env = process.env): ActivityWiring {
  return wireActivities(activitySettingsFromEnv(env));
}
