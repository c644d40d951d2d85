// `temporal-review-video/activities`: what a user's own worker needs to register our activities next to
// its own (the plugin, `temporal-review-video/plugin`, does it in one line). Nothing reads the environment
// unless the caller asks for it (`activitiesFromEnv`, `activitySettingsFromEnv`).
export {
  createActivities,
  QUERY_FAILURE_BACKOFF_MS,
  type Activities,
  type ActivityDependencies,
  type CallbackSettings,
  type PollInput,
  type ReviewSubmitInput,
  type ReviewTaskSummary,
  type VideoCreateInput,
  type VideoTaskSummary,
} from './review-then-generate.js';
export {
  activitiesFromEnv,
  activitySettingsFromEnv,
  createClients,
  wireActivities,
  type ActivitySettings,
  type ActivityWiring,
  type ServiceClients,
  type ServicesConfig,
} from './wiring.js';
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
export { createStoreActivities, type StoreActivities, type StoreVideoInput } from './store-video.js';
export {
  createVideoStore,
  FileVideoStore,
  loadVideoStoreConfig,
  S3VideoStore,
  type StoreManifest,
  type VideoStore,
} from '../store/index.js';
export type { StoredVideo } from '../model/stored-video.js';
export { ReviewClient } from '../services/review/client.js';
export { VideoClient } from '../services/video/client.js';
export { ServiceError } from '../services/errors.js';
export { RequestValidationError } from '../model/validation.js';
export {
  SERVICE_DEFAULTS,
  type ReviewServiceConfig,
  type VideoServiceConfig,
  type VideoStoreConfig,
} from '../config.js';
