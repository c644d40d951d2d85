// A job's notifications (issue 27, docs/webhooks.md), from the job's side. Where they go is decided once,
// at the start of a job with `notify`: the worker says so with the job's other needs (job-needs.ts), and
// refuses, before any call, a URL that is not public unless the worker allows private addresses, a job
// that names no URL on a worker without NOTIFY_URL, and any job when the worker cannot sign. Each notification is then a child
// workflow (notification.ts), started with ParentClosePolicy ABANDON under an id made of the job's workflow
// id, first run id and event (for a stage, the stage and how many times the run reached it): Temporal
// refuses a second one, and the job waits only for the child to start, never for the delivery. A job
// without `notify` adds no command at all.
import {
  CancellationScope,
  condition,
  getCurrentDetails,
  ParentClosePolicy,
  setCurrentDetails,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { NOTIFICATION_WORKFLOW_TYPE, notificationWorkflowId, type NotifyTarget } from '../contract/notify.js';
import type { JobNotification, NotifyEvent } from '../model/notify.js';
import type { Progress, Stage } from '../job/definitions.js';
import type { ReviewThenGenerateJob } from '../job/input.js';
import type { NotificationInput } from './notification.js';
import { payloadOf, type Outcome } from './notify-payload.js';

const FINAL_STAGES = new Set<Stage>(['succeeded', 'failed', 'cancelled']);

/** The id key of the `n`th time (from 1) the run reached `stage`: `stage-creating-2`. */
export const stageKey = (stage: Stage, n: number): string => `stage-${stage}-${n}`;

export class JobNotifier {
  /** What the job's `progress` shows: every notification scheduled, or not. */
  readonly notifications: JobNotification[] = [];
  readonly #pending: Promise<void>[] = [];

  private constructor(
    private readonly job: ReviewThenGenerateJob,
    private readonly target: NotifyTarget | undefined,
  ) {}

  /** `target`: where the worker said, at the start with the job's other needs, its notifications go. */
  static forJob(job: ReviewThenGenerateJob, target: Omit<NotifyTarget, 'events'> | undefined): JobNotifier {
    return new JobNotifier(job, job.notify && target ? { ...target, events: [...job.notify.events] } : undefined);
  }

  /** The job's progress with its notifications. */
  progress(p: Progress): Progress {
    return this.notifications.length > 0 ? { ...p, notifications: [...this.notifications] } : p;
  }

  /**
   * `stage` events (opt-in): every time the run reaches a working stage, its own notification, counted
   * per stage (`creating → waiting_for_quota → creating` is creating 1 and creating 2). The count is the
   * run's, from its start: the same on replay, so a retried workflow task or a reset never makes an id
   * that was not made before.
   */
  watchStages(progress: () => Progress): void {
    if (!this.target?.events.includes('stage')) return;
    void CancellationScope.nonCancellable(async () => {
      const reached = new Map<Stage, number>();
      let last: Stage | undefined;
      for (;;) {
        await condition(() => progress().stage !== last);
        const p = progress();
        last = p.stage;
        if (FINAL_STAGES.has(last)) return;
        const n = (reached.get(last) ?? 0) + 1;
        reached.set(last, n);
        this.#schedule('stage', stageKey(last, n), payloadOf(this.job, 'stage', p, {}));
      }
    });
  }

  /**
   * The outcome is decided: its notification is scheduled, and this returns once the delivery workflows
   * have started (not delivered). Never throws: a notification never changes a job's outcome.
   */
  async outcome(event: Exclude<NotifyEvent, 'stage'>, p: Progress, outcome: Outcome): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      if (this.target?.events.includes(event)) this.#schedule(event, event, payloadOf(this.job, event, p, outcome));
      await Promise.all(this.#pending);
      if (this.notifications.length > 0) {
        const lines = this.notifications.map(
          (n) => `${n.event}${n.stage ? ` (${n.stage})` : ''} ${n.state}: ${n.workflowId}`,
        );
        setCurrentDetails(`${getCurrentDetails()}\n\n**Notifications:** ${lines.join('; ')}`);
      }
    });
  }

  #schedule(event: NotifyEvent, key: string, payload: NotificationInput['payload']): void {
    const target = this.target!;
    const { workflowId, firstExecutionRunId } = workflowInfo();
    const id = notificationWorkflowId(workflowId, firstExecutionRunId, key);
    const entry: JobNotification = {
      event,
      ...(event === 'stage' ? { stage: payload.data.stage } : {}),
      workflowId: id,
      state: 'scheduled',
    };
    this.notifications.push(entry);
    const input: NotificationInput = {
      id,
      url: target.source === 'job' ? this.job.notify?.url : undefined,
      payload,
      windowMs: target.windowMs,
      jobWorkflowId: workflowId,
    };
    const started = startChild(NOTIFICATION_WORKFLOW_TYPE, {
      workflowId: id,
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      staticSummary: `${payload.type} of ${workflowId}`,
    }).then(
      () => undefined,
      (err: unknown) => {
        entry.state = 'not scheduled';
        entry.error = err instanceof Error ? err.message : String(err);
      },
    );
    this.#pending.push(started);
  }
}

export type { Outcome } from './notify-payload.js';
