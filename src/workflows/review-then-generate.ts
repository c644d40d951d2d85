// ReviewThenGenerate: media URLs -> asset review -> one video task with the approved Asset:// addresses
// -> the finished video. Deterministic: all I/O happens in activities. The stages live in
// review-stage.ts and generation-stage.ts; the run's state in run-state.ts.
import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { FailureType } from '../model/failure-types.js';
import { formatIssues } from '../model/validation.js';
import { invalidRunInput, reviewCallbackSignal, videoCallbackSignal } from '../contract/index.js';
import { progressQuery, type ReviewThenGenerateResult } from '../job/definitions.js';
import { asPublicFailure } from './failure-reading.js';
import { releaseQuotaSlots } from './admission/job-slot.js';
import { createVideoTaskOnce, waitForVideo, withAssets } from './generation-stage.js';
import { validateReviewThenGenerateInput, type ReviewThenGenerateInput } from '../job/input.js';
import { countJob, recordStage } from './job-metrics.js';
import { checkJobNeeds, jobNeeds, type MetNeeds } from './job-needs.js';
import { JobNotifier } from './notify.js';
import { cancelOrphans, watchForOrphans } from './orphans.js';
import { reviewAll } from './review-stage.js';
import { reviewThenGenerateActivities } from './run-activities.js';
import { RunState } from './run-state.js';
import { storeVideo } from './store-stage.js';

export async function ReviewThenGenerate(input: ReviewThenGenerateInput): Promise<ReviewThenGenerateResult> {
  const validation = validateReviewThenGenerateInput(input);
  if (!validation.ok) {
    countJob('failed', FailureType.InvalidInput);
    throw invalidRunInput(formatIssues(validation.problems), validation.problems);
  }
  const job = validation.job;
  const { workflowId } = workflowInfo();
  const run = new RunState(job, reviewThenGenerateActivities(job.timing));
  let notifier: JobNotifier | undefined;
  // Answered from the start: the checks below wait for the worker, and a caller may ask meanwhile.
  setHandler(progressQuery, () => (notifier ? notifier.progress(run.progress) : run.progress));
  // Everything the job needs from this worker, before any call: nothing is paid for that it cannot finish.
  let met: MetNeeds;
  try {
    met = await checkJobNeeds(jobNeeds(job));
  } catch (err) {
    // Refused before any call: the run's progress reads `failed`, not the stage it would have begun with.
    if (!isCancellation(err)) {
      run.fail(err);
      countJob('failed', FailureType.InvalidInput);
    }
    throw err;
  }
  const notify = (notifier = JobNotifier.forJob(job, met.notify));
  setHandler(reviewCallbackSignal, (s) => run.onReviewCallback(s));
  setHandler(videoCallbackSignal, (s) => run.onVideoCallback(s));

  let reviewing = true; // the stage may read waiting_for_quota in either stage
  try {
    run.setStage('reviewing');
    notify.watchStages(() => run.progress);
    const reviewStarted = Date.now();
    const assets = await reviewAll(job, run, workflowId);
    if (job.review) recordStage('review', reviewStarted);
    reviewing = false;

    // The create call is non-cancellable: a create under way always yields its id, so a cancel that
    // arrives meanwhile can cancel the task instead of leaving it behind.
    run.setStage('creating');
    const generationStarted = Date.now();
    const { task: videoTask, deadline } = await createVideoTaskOnce(job, run, workflowId, withAssets(job.task, assets));
    const taskId = videoTask.taskId!;
    watchForOrphans(run);
    if (CancellationScope.current().consideredCancelled)
      throw new CancelledFailure('cancelled while the video task was being created');

    run.setStage('generating');
    const task = await waitForVideo(job, run, videoTask, deadline);
    recordStage('generation', generationStarted);
    await releaseQuotaSlots(run);
    await cancelOrphans(run);
    const stored = job.store ? await storeVideo(job.timing, run, workflowId, taskId, task.videoUrl) : undefined;
    run.setStage('succeeded');
    countJob('succeeded');
    const result: ReviewThenGenerateResult = {
      taskId,
      state: 'succeeded',
      videoUrl: task.videoUrl,
      assets,
      reviewTaskIds: run.reviewTaskIds(),
      task: task.raw,
      ...(stored ? { stored } : {}),
    };
    await notify.outcome('succeeded', run.progress, { result });
    return result;
  } catch (err) {
    if (isCancellation(err)) {
      run.setStage('cancelling');
      const taskId = run.progress.taskId;
      if (taskId) {
        await CancellationScope.nonCancellable(() =>
          run.acts.cancelling.rtgCancelVideoTask.executeWithOptions({ summary: `cancel video task ${taskId}` }, [
            { taskId },
          ]),
        );
      }
      await releaseQuotaSlots(run); // after the cancel call: the provider no longer counts the task
      await cancelOrphans(run);
      run.setStage('cancelled');
      countJob('cancelled');
      await notify.outcome('cancelled', run.progress, { failure: err });
      throw err;
    }
    const failure = asPublicFailure(err, reviewing ? FailureType.ReviewFailed : FailureType.GenerationFailed);
    await releaseQuotaSlots(run);
    await cancelOrphans(run);
    run.fail(failure);
    countJob('failed', failure instanceof ApplicationFailure ? (failure.type ?? '') : '');
    await notify.outcome('failed', run.progress, { failure });
    throw failure;
  }
}
