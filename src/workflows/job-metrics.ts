// Job-level metrics, from workflow code through the SDK's workflow metric meter: emitted by the worker's
// Runtime exporter next to the SDK's own (PROMETHEUS_BIND_ADDRESS), never during replay, and no history
// event. The SDK adds `namespace`, `task_queue` and `workflow_type` to each; our labels are bounded (no id).
import { ApplicationFailure, metricMeter } from '@temporalio/workflow';
import { FailureType } from '../model/failure-types.js';
import { onFirstUse } from './metric-meters.js';

export const JOB_METRIC_NAMES = {
  jobs: 'rtg_jobs_total',
  stageDuration: 'rtg_job_stage_duration_seconds',
  ambiguousSubmits: 'rtg_ambiguous_submits_total',
  admissionWait: 'rtg_admission_wait_seconds',
  admissionRefusals: 'rtg_admission_refusals_total',
} as const;

const jobMeters = onFirstUse(() => ({
  jobs: metricMeter.createCounter('rtg_jobs', '', 'Jobs ended, by outcome and failure type'),
  stage: metricMeter.createHistogram(
    JOB_METRIC_NAMES.stageDuration,
    'float',
    '',
    'Time a job spent in review (submit to verdict) and in generation (create to final state)',
  ),
  ambiguous: metricMeter.createCounter(
    'rtg_ambiguous_submits',
    '',
    'Submits and creates answered ambiguously, by kind and how the run resolved them',
  ),
  admissionWait: metricMeter.createHistogram(
    JOB_METRIC_NAMES.admissionWait,
    'float',
    '',
    "Time a job waited for a slot of the provider's quota, from its first ask to the create sent",
  ),
  refusals: metricMeter.createCounter(
    'rtg_admission_refusals',
    '',
    'Granted creates and review submits the provider refused for its quota (429): each sent the job back to waiting',
  ),
}));

export type JobOutcome = 'succeeded' | 'failed' | 'cancelled';

/** One job ended; `failureType` is its public failure type when it failed. */
export function countJob(outcome: JobOutcome, failureType = ''): void {
  jobMeters().jobs.add(1, { outcome, failure_type: failureType });
}

/** The time one stage took, from its start (workflow time, epoch ms) to now. */
export function recordStage(stage: 'review' | 'generation', startedAt: number): void {
  jobMeters().stage.record(Math.max(Date.now() - startedAt, 0) / 1000, { stage });
}

/** Counts what the run did about an ambiguous review submit or create (afterAmbiguousSubmit's decision). */
export async function countedAmbiguity<D>(kind: 'review' | 'video', decision: Promise<D>): Promise<D> {
  try {
    const d = await decision;
    jobMeters().ambiguous.add(1, { kind, resolution: d === 'resubmit' ? 'resubmitted' : 'adopted' });
    return d;
  } catch (err) {
    if (err instanceof ApplicationFailure && err.type === FailureType.SubmitUnconfirmed)
      jobMeters().ambiguous.add(1, { kind, resolution: 'unconfirmed' });
    throw err;
  }
}

/** A job's create went out after waiting for a slot of `quotaKey` since `since` (workflow time, epoch ms). */
export function recordAdmissionWait(quotaKey: string, since: number): void {
  jobMeters().admissionWait.record(Math.max(Date.now() - since, 0) / 1000, { quota_key: quotaKey });
}

/** The provider refused a granted create or review submit for its quota (429). */
export function countQuotaRefusal(quotaKey: string, service: 'video' | 'review'): void {
  jobMeters().refusals.add(1, { quota_key: quotaKey, service });
}
