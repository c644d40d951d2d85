// One video task of the native task API as the sandbox holds it, and the rules it lives by: which states
// are final, what a scripted outcome matches, and what a prompt or media URL hint scripts.
import { urlPathIncludes } from './context.js';
import type { VideoOutcome } from './types.js';
import type { VideoCreate } from './video-validation.js';

export type VideoStatus = 'queued' | 'running' | VideoOutcome;

export interface VideoTaskState {
  id: string;
  model: string;
  body: Record<string, unknown>;
  status: VideoStatus;
  createdAt: number;
  updatedAt: number;
  callbackUrl: string | undefined;
  outcome: VideoOutcome;
  durationMs: number;
  timer: NodeJS.Timeout | undefined;
}

export interface ScriptedOutcome {
  match: { model?: string; promptIncludes?: string };
  outcome: VideoOutcome;
  durationMs: number | undefined;
}

export function isFinal(status: VideoStatus): boolean {
  return status !== 'queued' && status !== 'running';
}

export function matches(m: ScriptedOutcome['match'], c: VideoCreate): boolean {
  if (m.model !== undefined && m.model !== c.model) return false;
  if (m.promptIncludes !== undefined && !c.prompt.includes(m.promptIncludes)) return false;
  return true;
}

export function hintedOutcome(c: VideoCreate): VideoOutcome {
  const said = (word: string) =>
    c.prompt.toLowerCase().includes(word) || c.media.some((m) => urlPathIncludes(m.url, word));
  if (said('video-fail')) return 'failed';
  if (said('video-expire')) return 'expired';
  if (said('video-cancel')) return 'cancelled';
  return 'succeeded';
}
