// The one loop behind every submit and create (ReviewThenGenerate's async and sync review submits and its
// video create, GenerateAndPoll's create): sent at most once, inside the provider's quota. Each attempt either sends (the task
// is made, or the answer is ambiguous) or only asks the quota: queued, or refused (429) after a grant,
// the task waits for the gate's grant; granted at once, the next attempt sends. The stage's time-out
// starts over at admission (the asking attempt may have waited long, e.g. retried after its worker was
// lost). An ambiguous answer is never sent again blindly: ambiguity.ts adopts, resubmits or fails.
import type { ApplicationFailure } from '@temporalio/workflow';
import type { AdmissionAsk, QuotaAnswer } from '../contract/index.js';
import type { QuotaTicket } from './admission/job-slot.js';
import { afterAmbiguousSubmit, ambiguityOf, type Ambiguity } from './ambiguity.js';
import { countedAmbiguity } from './job-metrics.js';
import type { RemoteTask } from './remote-task.js';

/** A remote task's place in the provider's quota, as its submit sees it (QuotaTicket). */
export type SubmitQuota = Pick<QuotaTicket, 'ask' | 'admittedAtOnce' | 'waitFor' | 'sent' | 'answered'>;

export interface SubmitOnce<A, F> {
  job: { resubmitOnAmbiguity: boolean; timing: { createAmbiguityGraceMs: number } };
  /** Where the run shows its last error (`progress.lastError`). */
  run: { noteError(message: string): void };
  kind: 'review' | 'video';
  /** How `progress.lastError` names the call: "review submit", "create". */
  label: string;
  /** Told of every outcome: queued, admitted, ambiguous, resubmitted. */
  task: RemoteTask;
  quota: SubmitQuota;
  /** The stage's time-out, and its first deadline (epoch ms). */
  timeoutMs: number;
  deadline: number;
  /** One attempt, carrying the quota's ask and the stage's deadline. */
  send(ask: AdmissionAsk, deadline: number): Promise<A | QuotaAnswer>;
  /** Waits until `until` for a callback naming a task an ambiguous call made, confirmed. */
  find(until: number): Promise<F | undefined>;
  /** The SubmitUnconfirmed failure for `count` ambiguous answers, given why the run gave up. */
  unconfirmed(ambiguity: Ambiguity, count: number): (why: string) => ApplicationFailure;
}

/** What was sent, or the task adopted after an ambiguous answer; `deadline`: the stage's, from admission. */
export type SubmitOutcome<A, F> = ({ sent: A } | { adopted: F }) & { deadline: number };

export async function submitAtMostOnce<A extends object, F>(s: SubmitOnce<A, F>): Promise<SubmitOutcome<A, F>> {
  let deadline = s.deadline;
  for (let ambiguous = 0; ;) {
    let answer: A | QuotaAnswer;
    try {
      answer = await s.send(s.quota.ask, deadline);
    } catch (err) {
      const ambiguity = ambiguityOf(err);
      if (!ambiguity) throw err;
      ambiguous++;
      await s.quota.answered(); // it may have been made: the provider may count it
      s.task.apply({ type: 'submitAmbiguous' });
      s.run.noteError(`${s.label} ambiguous (${ambiguous}): ${ambiguity.message}`);
      const next = await countedAmbiguity(
        s.kind,
        afterAmbiguousSubmit({
          ambiguity,
          count: ambiguous,
          resubmitOnAmbiguity: s.job.resubmitOnAmbiguity,
          graceMs: s.job.timing.createAmbiguityGraceMs,
          deadline,
          find: s.find,
          unconfirmed: s.unconfirmed(ambiguity, ambiguous),
        }),
      );
      if (next !== 'resubmit') return { adopted: next.adopted, deadline };
      s.task.apply({ type: 'resubmit' });
      continue;
    }
    if ('admitted' in answer) {
      s.quota.admittedAtOnce(answer.admitted);
      deadline = Date.now() + s.timeoutMs;
      continue;
    }
    if ('queued' in answer || 'refused' in answer) {
      s.task.apply({ type: 'queued' });
      await s.quota.waitFor(answer);
      deadline = Date.now() + s.timeoutMs;
      s.task.apply({ type: 'admitted' });
      continue;
    }
    await s.quota.sent();
    return { sent: answer, deadline };
  }
}
