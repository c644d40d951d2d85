// What a job can be notified of (issue 27, docs/webhooks.md): its three outcomes, and (opt-in) each change
// of its working stage. Apart from notify.ts so that the job's progress schema (job-schemas.ts) can name
// them without a cycle. Pure.
import { z } from 'zod';
import { lazy } from './lazy.js';

export const NOTIFY_EVENTS = ['succeeded', 'failed', 'cancelled', 'stage'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
/** The events of a job whose `notify` names none. */
export const DEFAULT_NOTIFY_EVENTS: readonly NotifyEvent[] = ['succeeded', 'failed', 'cancelled'];

export const notifyEventSchema = lazy(() => z.enum(NOTIFY_EVENTS));
