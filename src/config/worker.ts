// The worker's own settings: its sizing (WORKER_*) and its Worker Deployment version (TEMPORAL_DEPLOYMENT_NAME,
// TEMPORAL_WORKER_BUILD_ID, TEMPORAL_VERSIONING_BEHAVIOR; read by src/temporal/worker-deployment.ts).
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { nonEmpty, parse, type Env } from './env.js';
import type { WorkerTuning } from './types.js';

/**
 * The worker's prebuilt workflow bundle (src/bundle-workflows.ts writes it and its variants), instead of
 * bundling at start. A path that names no file is refused at start rather than when the worker loads it.
 */
export const workflowBundleSchema = z.object({
  WORKFLOW_BUNDLE_PATH: z
    .string()
    .refine((p) => existsSync(p), 'names no file')
    .optional(),
});

/** Worker sizing; each unset variable keeps the SDK's default (the `tuning` runs of `npm run bench` measure what they change). */
export const workerTuningSchema = z
  .object({
    /** Sticky cache: workflows kept in memory between their tasks (default: sized from the budget below). */
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).max(1_000_000).optional(),
    /** RSS, MiB, the sticky cache is sized for when WORKER_MAX_CACHED_WORKFLOWS is unset (src/config/worker-cache.ts). */
    WORKER_MEMORY_BUDGET_MIB: z.coerce.number().int().min(64).max(1_048_576).optional(),
    /** Workflow tasks processed at once (SDK default 40). */
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(10_000).optional(),
    /** Activities (HTTP calls) executing at once (SDK default 100). */
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).optional(),
  })
  .superRefine((c, ctx) => {
    // The SDK would silently lower it; say so instead.
    if (
      c.WORKER_MAX_CACHED_WORKFLOWS !== undefined &&
      c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS !== undefined &&
      c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS > c.WORKER_MAX_CACHED_WORKFLOWS
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'],
        message: 'must not exceed WORKER_MAX_CACHED_WORKFLOWS',
      });
    }
  });

/** Versioning is off unless both are set; then a run stays on the build that started it (docs/upgrading.md). */
export const WORKER_DEPLOYMENT_DEFAULTS = { versioningBehavior: 'PINNED' } as const;
export const workerDeploymentSchema = z
  .object({
    TEMPORAL_DEPLOYMENT_NAME: nonEmpty.optional(),
    TEMPORAL_WORKER_BUILD_ID: nonEmpty.optional(),
    TEMPORAL_VERSIONING_BEHAVIOR: z.enum(['PINNED', 'AUTO_UPGRADE']).optional(),
  })
  .refine((c) => !c.TEMPORAL_DEPLOYMENT_NAME === !c.TEMPORAL_WORKER_BUILD_ID, {
    path: ['TEMPORAL_WORKER_BUILD_ID'],
    message: 'and TEMPORAL_DEPLOYMENT_NAME are set together, or neither (versioning off)',
  });

export function loadWorkerTuning(env: Env = process.env): WorkerTuning {
  const c = parse(workerTuningSchema, env);
  return {
    ...(c.WORKER_MAX_CACHED_WORKFLOWS !== undefined ? { maxCachedWorkflows: c.WORKER_MAX_CACHED_WORKFLOWS } : {}),
    ...(c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS !== undefined
      ? { maxConcurrentWorkflowTaskExecutions: c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS }
      : {}),
    ...(c.WORKER_MAX_CONCURRENT_ACTIVITIES !== undefined
      ? { maxConcurrentActivityTaskExecutions: c.WORKER_MAX_CONCURRENT_ACTIVITIES }
      : {}),
  };
}
