// Reads what little the workflow needs from a callback body. Payloads are not specified (spec: not
// shown) and not signed by the sender, so only a task id and a status are taken, leniently, and bounded.
import type { CallbackSignal } from '../contract/index.js';
import { toReviewTaskStatus } from '../model/review/task.js';
import { toVideoTaskStatus } from '../model/video/task.js';

const SAFE = /^[\w.:@\-/]{1,200}$/;

function pick(obj: unknown, keys: string[]): string | undefined {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  for (const k of keys) {
    const v = (obj as Record<string, unknown>)[k];
    if ((typeof v === 'string' || typeof v === 'number') && SAFE.test(String(v))) return String(v);
  }
  return undefined;
}

export function callbackSignalFrom(kind: 'review' | 'video', payload: unknown): CallbackSignal {
  const idKeys = kind === 'review' ? ['task_id', 'taskId', 'id'] : ['id', 'task_id', 'taskId'];
  const statusKeys = ['status', 'task_status', 'state'];
  const data = payload && typeof payload === 'object' ? (payload as Record<string, unknown>).data : undefined;
  const taskId = pick(payload, idKeys) ?? pick(data, idKeys);
  const status = normalized(kind, (pick(payload, statusKeys) ?? pick(data, statusKeys))?.toLowerCase());
  return { ...(taskId ? { taskId } : {}), ...(status ? { status } : {}) };
}

/**
 * A known status in the wire model's words (`Canceled` is `cancelled`, as a query answer would read), so
 * the run recognises a final state whatever the spelling; an unknown one is kept as sent, lower-cased.
 */
function normalized(kind: 'review' | 'video', status: string | undefined): string | undefined {
  if (status === undefined) return undefined;
  const known = kind === 'review' ? toReviewTaskStatus(status) : toVideoTaskStatus(status);
  return known === 'unknown' ? status : known;
}
