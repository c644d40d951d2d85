// Records every callback signal it receives and answers how many through a query; ends on `finish`.
// The receiver property tests use it to prove that refused requests never reach a workflow.
import { condition, defineQuery, defineSignal, setHandler } from '@temporalio/workflow';
import { reviewCallbackSignal, videoCallbackSignal, type CallbackSignal } from '../../src/contract/index.js';

export const receivedQuery = defineQuery<number>('received');
export const finishSignal = defineSignal('finish');

export async function signalRecorder(): Promise<Array<{ kind: string; signal: CallbackSignal }>> {
  const received: Array<{ kind: string; signal: CallbackSignal }> = [];
  let finished = false;
  setHandler(reviewCallbackSignal, (signal) => void received.push({ kind: 'review', signal }));
  setHandler(videoCallbackSignal, (signal) => void received.push({ kind: 'video', signal }));
  setHandler(receivedQuery, () => received.length);
  setHandler(finishSignal, () => void (finished = true));
  await condition(() => finished);
  return received;
}
