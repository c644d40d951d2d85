// `temporal-review-video/activities`: what a user's own worker needs to register our activities next to
// its own. Nothing reads the environment unless the caller asks for it (`activitiesFromEnv`).
import { loadCallbackConfig, loadServicesConfig, type ReviewServiceConfig, type VideoServiceConfig } from '../config.js';
import { ReviewClient } from '../services/review/client.js';
import { VideoClient } from '../services/video/client.js';
import { createActivities, type Activities, type ActivityDependencies } from './index.js';

export {
  createActivities,
  QUERY_FAILURE_BACKOFF_MS,
  type Activities,
  type ActivityDependencies,
  type PollInput,
  type ReviewSubmitInput,
  type ReviewTaskSummary,
  type VideoCreateInput,
  type VideoTaskSummary,
} from './index.js';
export {
  createGatewayActivities,
  type GatewayActivities,
  type GatewayCallInput,
  type GatewayCallResult,
  type GatewayCreateInput,
  type GatewayCreateResult,
  type GatewayQueryInput,
  type GatewayTaskSummary,
} from './gateway.js';
export { ReviewClient } from '../services/review/client.js';
export { VideoClient } from '../services/video/client.js';
export { ServiceError } from '../services/errors.js';
export { RequestValidationError } from '../model/validation.js';
export type { ReviewServiceConfig, VideoServiceConfig } from '../config.js';

/** Explicit service settings; the optional fields take the same defaults as the environment variables. */
export interface ServicesConfig {
  video: Pick<VideoServiceConfig, 'baseUrl' | 'apiKey'> & Partial<Omit<VideoServiceConfig, 'baseUrl' | 'apiKey'>>;
  review: Pick<ReviewServiceConfig, 'baseUrl' | 'accessToken'> & Partial<Omit<ReviewServiceConfig, 'baseUrl' | 'accessToken'>>;
}

export interface ServiceClients {
  video: VideoClient;
  review: ReviewClient;
  /** Closes both clients' connection pools (call it after the worker stopped). */
  close(): Promise<void>;
}

/** Same defaults as VIDEO_CANCEL_METHOD, VIDEO_CANCEL_PATH, HTTP_TIMEOUT_MS and HTTP_MAX_CONNECTIONS. */
export const SERVICE_DEFAULTS = { cancelMethod: 'POST', cancelPath: '/v1/task/cancel/{id}', timeoutMs: 30_000, connections: 32 } as const;

export function createClients(config: ServicesConfig): ServiceClients {
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

export interface ActivitiesFromEnv {
  /** Register these in `Worker.create({ activities: { ...activities, ...yourOwn } })`. */
  activities: Activities;
  clients: ServiceClients;
  callbacks: ActivityDependencies['callbacks'];
  close(): Promise<void>;
}

/**
 * Reads VIDEO_*, REVIEW_*, HTTP_TIMEOUT_MS, HTTP_MAX_CONNECTIONS, CALLBACK_PUBLIC_URL, CALLBACK_SECRET and ALLOW_PRIVATE_URLS (design: configuration)
 * from `env` — only when called — and builds the clients and activities. Throws ConfigError naming the
 * variable at fault, never its value.
 */
export function activitiesFromEnv(env: Record<string, string | undefined> = process.env): ActivitiesFromEnv {
  const services = loadServicesConfig(env);
  const callbackConfig = loadCallbackConfig(env);
  const callbacks = callbackConfig.publicUrl && callbackConfig.secret ? { publicUrl: callbackConfig.publicUrl, secret: callbackConfig.secret } : undefined;
  const clients = createClients(services);
  return { activities: createActivities({ video: clients.video, review: clients.review, callbacks }), clients, callbacks, close: clients.close };
}
