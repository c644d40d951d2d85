// What a job needs from the worker that runs it, asked once at the job's start, before any call to the
// services: a job the worker cannot finish is refused (InvalidInput naming every field and the worker's
// setting it lacks) instead of failing after its video was paid for. One need per input field that depends
// on a worker setting (store, notify, the length a daily budget in seconds charges), all in one activity; a
// job that needs nothing asks nothing (no command).
import type { ValidationIssue } from '../model/validation.js';
import type { NotifyTarget, NotifyTargetInput } from './notify.js';

/** The worker settings a job depends on, by the input field that asks for them. */
export interface JobNeeds {
  /** `store: true`: a VIDEO_STORE to copy the finished video to. */
  store?: true;
  /**
   * A `task` without `duration`: its cost in seconds is unknown, so the tenant (the job's fairnessKey) must
   * have no daily budget in seconds on this worker (VIDEO_DAILY_SECONDS_BY_TENANT).
   */
  unsaidLength?: { tenant: string };
  /**
   * A GenerateAndPoll entry point whose result has no public URL (`/v1/videos`: served only to the key):
   * a VIDEO_STORE to keep it in.
   */
  keptResult?: { entryPoint: string };
  /**
   * `notify`: where its notifications go under this worker's rules (its `notify.url`, public unless
   * ALLOW_PRIVATE_URLS; else the worker's NOTIFY_URL) and a NOTIFY_SECRET to sign them.
   */
  notify?: NotifyTargetInput;
}

/** The input field each need comes from, named in a refusal. */
export const NEED_FIELDS: Record<keyof JobNeeds, string> = {
  store: 'store',
  unsaidLength: 'task.duration',
  keptResult: 'entryPoint',
  notify: 'notify',
};

/** Every need met (with where the job's notifications go, when it asked), or every one this worker lacks. */
export type JobNeedsAnswer =
  { ok: true; notify?: Omit<NotifyTarget, 'events'> } | { ok: false; problems: ValidationIssue[] };

export interface JobNeedsActivities {
  /** Answers from the worker's own settings; calls nothing. */
  rtgCheckJobNeeds(needs: JobNeeds): Promise<JobNeedsAnswer>;
}
