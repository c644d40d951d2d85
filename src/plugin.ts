// `temporal-review-video/plugin`: `plugins: [new ReviewVideoPlugin()]` in a user's Worker.create registers
// our workflows and activities next to theirs; in bundleWorkflowCode it adds our preloaded modules. Built on
// @temporalio/plugin's SimplePlugin (experimental in the SDK). @temporalio/worker is imported for types
// only, so the package root can export this without loading the worker's native module.
import type { ClientInterceptors } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, ReplayWorkerOptions, Worker, WorkerInterceptors, WorkerOptions } from '@temporalio/worker';
import {
  activitySettingsFromEnv,
  createActivities,
  wireActivities,
  type Activities,
  type ActivitySettings,
  type ActivityWiring,
  type CallbackSettings,
  type ReviewClient,
  type VideoClient,
} from './activities/index.js';
import type { AdmissionSettings } from './config/admission.js';
import type { NotifySettings } from './config/notify.js';
import { dataConverterFromEnv } from './codec/data-converter.js';
import { mixedBaseUrlsProblem } from './config/base-urls.js';
import { workflowPreloadModules, workflowsPath } from './workflows-path.js';

/** Where the plugin's activities get their two services. */
export type ReviewVideoSource =
  /** The variables of our worker (design: configuration), read when the first worker is configured. */
  | { env?: Record<string, string | undefined> }
  /** Explicit settings: each worker gets its own clients, closed when that worker stops. */
  | ActivitySettings
  /** Clients you made: shared by every worker, closed by you. */
  | {
      clients: { video: VideoClient; review: ReviewClient };
      callbacks?: CallbackSettings | undefined;
      notify?: NotifySettings | undefined;
      admission?: AdmissionSettings | undefined;
    };

/** Where later layers hook in (payload encryption, tracing); unset keeps the SDK's defaults. */
export interface ReviewVideoHooks {
  /**
   * Merged into the data converter of every worker and client given the plugin (e.g. a payload codec).
   * Unset: payload encryption when PAYLOAD_ENCRYPTION_KEYS or _FILE is set (in `env`, else process.env),
   * its codec appended after the ones the worker or client already has (docs/encryption.md); `{}` = none.
   */
  dataConverter?: DataConverter;
  /** Appended to the interceptors of every client and worker given the plugin (e.g. OpenTelemetry). */
  interceptors?: { client?: ClientInterceptors; worker?: WorkerInterceptors };
}

export type ReviewVideoPluginOptions = ReviewVideoSource & ReviewVideoHooks;

export const REVIEW_VIDEO_PLUGIN_NAME = 'temporal-review-video';

/** Our activity that finds a running worker's own clients again (the SDK keeps the function we gave it). */
const MARKER: keyof Activities = 'rtgSubmitReview';

/**
 * Registers ReviewThenGenerate, ReviewThenGenerateBatch and GenerateAndPoll with their activities.
 * - workflows: our module as `workflowsPath`, unless the worker has its own `workflowsPath` (which must
 *   then re-export `temporal-review-video/workflows`) or a prebuilt `workflowBundle`;
 * - activities: appended to the worker's own; every name starts with `rtg`;
 * - bundler: our modules preloaded once per worker thread (see workflowPreloadModules).
 * Given to a Client it adds the payload encryption of the environment (when its keys are set) and the
 * hooks, and reads no other setting.
 */
export class ReviewVideoPlugin extends SimplePlugin {
  readonly #options: ReviewVideoPluginOptions;
  #settings: ActivitySettings | undefined;
  /** Clients made by this plugin and not closed yet, one set per configured worker. */
  readonly #owned = new Set<ActivityWiring>();

  /** Bundled into the workflow code so that workflow failures are encrypted too (encodeCommonAttributes). */
  readonly #failureConverterPath: string | undefined;

  constructor(options: ReviewVideoPluginOptions = {}) {
    checkBaseUrls(options);
    // Read here, not per worker: a user's worker and client given the plugin must agree on the keys.
    const encryption =
      options.dataConverter === undefined
        ? dataConverterFromEnv(('env' in options ? options.env : undefined) ?? process.env)
        : undefined;
    super({
      name: REVIEW_VIDEO_PLUGIN_NAME,
      dataConverter:
        options.dataConverter ??
        (encryption &&
          ((existing?: DataConverter) => ({
            ...existing,
            payloadCodecs: [...(existing?.payloadCodecs ?? []), ...(encryption.payloadCodecs ?? [])],
            failureConverterPath: encryption.failureConverterPath,
          }))),
      clientInterceptors: options.interceptors?.client,
      workerInterceptors: options.interceptors?.worker,
    });
    this.#options = options;
    this.#failureConverterPath = (options.dataConverter ?? encryption)?.failureConverterPath;
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const configured = super.configureWorker(options);
    const activities = { ...configured.activities, ...this.#activitiesForNewWorker() };
    return { ...configured, ...ourWorkflows(configured), activities };
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const configured = super.configureReplayWorker(options);
    return { ...configured, ...ourWorkflows(configured) };
  }

  override configureBundler(options: BundleOptions): BundleOptions {
    const configured = super.configureBundler(options);
    return {
      ...configured,
      preloadModules: [...(configured.preloadModules ?? []), ...workflowPreloadModules],
      ...(this.#failureConverterPath && !configured.failureConverterPath
        ? { failureConverterPath: this.#failureConverterPath }
        : {}),
    };
  }

  /** Closes the clients made for this worker once it has stopped (after its activities drained). */
  override async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    const registered = worker.options.activities.get(MARKER);
    const mine = [...this.#owned].find((w) => w.activities[MARKER] === registered);
    try {
      await super.runWorker(worker, next);
    } finally {
      if (mine) await this.#release(mine);
    }
  }

  /** Closes the clients of workers that never ran (Worker.create failed, or run() was never called). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#owned].map((w) => this.#release(w)));
  }

  #activitiesForNewWorker(): Activities {
    const o = this.#options;
    if ('clients' in o)
      return createActivities({
        video: o.clients.video,
        review: o.clients.review,
        callbacks: o.callbacks,
        admission: o.admission,
        notify: o.notify,
      });
    // Read once, here rather than in the constructor: a Client given the plugin needs no service settings.
    this.#settings ??=
      'services' in o
        ? { services: o.services, callbacks: o.callbacks, store: o.store, notify: o.notify, admission: o.admission }
        : activitySettingsFromEnv(o.env);
    const wiring = wireActivities(this.#settings);
    this.#owned.add(wiring);
    return wiring.activities;
  }

  async #release(wiring: ActivityWiring): Promise<void> {
    this.#owned.delete(wiring);
    await wiring.close();
  }
}

/**
 * The two services' base addresses are two (spec: never mixed), checked when the plugin is made: the
 * explicit settings, or the clients given. The environment's are checked when a worker reads them.
 */
function checkBaseUrls(options: ReviewVideoPluginOptions): void {
  const pair =
    'services' in options
      ? { prefix: 'services', video: options.services.video.baseUrl, review: options.services.review.baseUrl }
      : 'clients' in options
        ? { prefix: 'clients', video: options.clients.video.baseUrl, review: options.clients.review.baseUrl }
        : undefined;
  // Clients of another shape (test doubles) may not say where they send.
  if (!pair || typeof pair.video !== 'string' || typeof pair.review !== 'string') return;
  const mixed = mixedBaseUrlsProblem(
    { field: `${pair.prefix}.video.baseUrl`, url: pair.video },
    { field: `${pair.prefix}.review.baseUrl`, url: pair.review },
  );
  if (mixed) throw new TypeError(`ReviewVideoPlugin: ${mixed}`);
}

/** Our workflows module, unless the worker already names its workflow code. */
function ourWorkflows(
  options: Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'>,
): Pick<WorkerOptions, 'workflowsPath'> {
  return options.workflowsPath || options.workflowBundle ? {} : { workflowsPath };
}
