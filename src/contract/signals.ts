// The signals the callback receiver sends a run (src/callbacks/) and the run handles (src/workflows/).
import { defineSignal } from '@temporalio/workflow';

/**
 * What the callback receiver passes on: only what it could read from the (unsigned, untrusted) payload.
 * The workflow treats it as a hint and confirms with one query before acting.
 */
export interface CallbackSignal {
  taskId?: string;
  status?: string;
}

export const reviewCallbackSignal = defineSignal<[CallbackSignal]>('reviewCallback');
export const videoCallbackSignal = defineSignal<[CallbackSignal]>('videoCallback');
