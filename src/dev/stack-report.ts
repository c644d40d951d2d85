// What `npm run dev` (and `npm run demo --keep`) prints once the local stack is up: every address and
// credential, and the environment lines to paste to run the CLI, a caller or a worker of one's own
// against it. Local sandbox credentials only: they are made up at start and die with the stack.
import { describeEncryption } from '../codec/data-converter.js';
import { describeVideoStore } from '../store/config.js';
import type { LocalStack } from './local-stack.js';

/** For the CLI (`review-video`, `npm run cli`) and callers: where Temporal is and which queue the worker polls. */
export function callerEnv(stack: LocalStack): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: stack.server.address,
    TEMPORAL_NAMESPACE: stack.server.namespace,
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
  };
}

/** For a worker of one's own (`npm run worker`) on the same services and callback receiver. */
export function workerEnv(stack: LocalStack): Record<string, string> {
  return {
    ...callerEnv(stack),
    VIDEO_API_BASE_URL: stack.sandbox.videoBaseUrl,
    VIDEO_API_KEY: stack.sandbox.apiKey,
    REVIEW_API_BASE_URL: stack.sandbox.reviewBaseUrl,
    REVIEW_ACCESS_TOKEN: stack.sandbox.accessToken,
    CALLBACK_PUBLIC_URL: stack.receiver.url,
    CALLBACK_SECRET: stack.callbackSecret,
    ALLOW_PRIVATE_URLS: 'true',
  };
}

const exports = (env: Record<string, string>) => Object.entries(env).map(([k, v]) => `  export ${k}=${v}`);

/** Every part's address and the sandbox's credentials. */
export function stackAddresses(stack: LocalStack): string[] {
  const { server, sandbox } = stack;
  return [
    `Temporal dev server ${server.cliVersion} at ${server.address} (namespace ${server.namespace}, search attributes registered, data in memory)`,
    `Temporal Web UI: ${stack.uiUrl}`,
    `worker: task queue ${stack.taskQueue}`,
    `sandbox video service: ${sandbox.videoBaseUrl} (API key ${sandbox.apiKey})`,
    `sandbox review service: ${sandbox.reviewBaseUrl} (access token ${sandbox.accessToken})`,
    `callback receiver: ${stack.receiver.url}`,
    `codec server (the Web UI decodes through it): ${stack.codecServer.url}`,
    `payload encryption ${stack.encryption ? describeEncryption(stack.encryption) : 'off (set PAYLOAD_ENCRYPTION_KEYS to turn it on: docs/encryption.md)'}`,
    `video store: ${describeVideoStore(stack.store)}${stack.tempStoreDir ? ' (a temporary folder; set VIDEO_STORE to keep the videos elsewhere)' : ''}`,
  ];
}

/** The lines to paste: for the CLI and callers, then for a worker of one's own. */
export function stackEnvLines(stack: LocalStack): string[] {
  const caller = callerEnv(stack);
  const own = workerEnv(stack);
  return [
    'To run the CLI (npm run cli -- submit ...) or your own caller against it:',
    ...exports(caller),
    ...(stack.encryption ? ['  and the same PAYLOAD_ENCRYPTION_KEYS as here'] : []),
    'To run a worker of your own (npm run worker) beside it, also:',
    ...exports(Object.fromEntries(Object.entries(own).filter(([k]) => !(k in caller)))),
  ];
}
