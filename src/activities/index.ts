// `temporal-review-video/activities`: what a user's own worker needs to register our activities next to
// its own (the plugin, `temporal-review-video/plugin`, does it in one line). Nothing reads the environment
// unless the caller asks for it (`activitiesFromEnv`, `activitySettingsFromEnv`).
export { createActivities, type ActivityDependencies, type CallbackSettings } from './review-then-generate.js';
// What the activities take and give, and their signatures: declared in the contract both sides share.
export type {
  Activities,
  GatewayActivities,
  GatewayCallInput,
  GatewayCallResult,
  GatewayCreateInput,
  GatewayCreateResult,
  GatewayQueryInput,
  GatewayTaskSummary,
  PollInput,
  ReviewSubmitInput,
  ReviewTaskSummary,
  StoreActivities,
  StoreVideoInput,
  VideoCreateInput,
  VideoTaskSummary,
} from '../contract/index.js';
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
export { createGatewayActivities } from './gateway.js';
export { createStoreActivities } from './store-video.js';
// Outgoing webhooks (docs/webhooks.md): createActivities builds them from its `notify` settings.
export { NOTIFY_METRIC_NAMES } from './notify.js';
export type {
  DeliveryInput,
  DeliveryResult,
  NotifyActivities,
  NotifyTargetInput,
  NotifyTargetResult,
} from '../contract/notify.js';
export { loadNotifyConfig, type NotifySettings } from '../config/notify.js';
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
export { SERVICE_DEFAULTS } from '../config/services.js';
export { type ReviewServiceConfig, type VideoServiceConfig, type VideoStoreConfig } from '../config/types.js';
