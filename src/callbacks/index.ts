// `temporal-review-video/callbacks`: the callback receiver as a request handler to mount in an existing
// node:http server, Express or Fastify app (`createCallbackHandler`), or as its own server
// (`startCallbackServer`, which `dist/callbacks/main.js` runs from the environment).
export { createCallbackHandler, type CallbackHandlerOptions } from './handler.js';
export { startCallbackServer, type CallbackServer } from './server.js';
export {
  buildCallbackUrl,
  callbackExpiry,
  callbackSignature,
  verifyCallbackUrl,
  type CallbackKind,
  type CallbackSecrets,
  type CallbackTarget,
  type CallbackVerdict,
} from '../callback-signing.js';
export { callbackSignalFrom } from './payload.js';
