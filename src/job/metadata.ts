// What the Temporal Web UI shows of a ReviewThenGenerate run before anyone opens its history: a one-line
// static summary and markdown static details. Pure (no I/O, no clock): the client helper, the CLI and the
// batch workflow (inside the deterministic sandbox) all build them the same way.
// Never includes media URLs: they may be signed addresses whose query string is a credential.
import { DEFAULT_FAIRNESS_KEY, type TaskQueuePriority } from '../model/priority.js';
import type { ReviewThenGenerateJob } from './input.js';

const PROMPT_EXCERPT = 60;
const PROMPT_DETAILS = 300;

export interface JobContext {
  businessKey?: string | undefined;
  batchId?: string | undefined;
  /** Position of the job in its batch (0-based). */
  batchIndex?: number | undefined;
}

export interface JobMetadata {
  staticSummary: string;
  staticDetails: string;
  model: string;
  /**
   * Temporal's task-queue priority and fairness for the run (its activities and children inherit them):
   * the job's priority, and its tenant (fairnessKey, else the batch id, else `default`).
   */
  priority: TaskQueuePriority;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function excerpt(text: string, max: number): string {
  const flat = oneLine(text);
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Counts of media items by kind, e.g. "2 images, 1 video". */
function mediaBreakdown(job: ReviewThenGenerateJob): { count: number; text: string } {
  const counts = { image: 0, video: 0, audio: 0 };
  for (const item of job.task.content) {
    if (item.type === 'image_url') counts.image++;
    else if (item.type === 'video_url') counts.video++;
    else if (item.type === 'audio_url') counts.audio++;
  }
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => plural(n, kind));
  const count = counts.image + counts.video + counts.audio;
  return { count, text: parts.length > 0 ? parts.join(', ') : 'no media' };
}

export function promptOf(job: ReviewThenGenerateJob): string {
  const text = job.task.content.find((c) => c.type === 'text');
  return text && 'text' in text && typeof text.text === 'string' ? text.text : '';
}

export function jobMetadata(job: ReviewThenGenerateJob, context: JobContext = {}): JobMetadata {
  const model = String(job.task.model);
  const prompt = promptOf(job);
  const media = mediaBreakdown(job);
  const staticSummary = `${model} · ${media.count} media · ${prompt ? `"${excerpt(prompt, PROMPT_EXCERPT)}"` : '(no prompt)'}`;
  const t = job.task as Record<string, unknown>;
  const shape = ['ratio', 'duration', 'resolution']
    .filter((k) => t[k] !== undefined)
    .map((k) => (k === 'duration' ? `${String(t[k])} s` : String(t[k])));
  const reviewUrls = job.reviewBatches.reduce((n, b) => n + b.urls.length, 0);
  const lines = [
    `**Model:** ${[model, ...shape].join(' · ')}`,
    `**Prompt:** ${prompt ? excerpt(prompt, PROMPT_DETAILS) : '(none)'}`,
    `**Media:** ${media.count} (${media.text})`,
    `**Review:** ${job.review ? `${plural(reviewUrls, 'URL')} in ${plural(job.reviewBatches.length, 'batch')} (${job.review.mode})` : 'none'}`,
    `**Callbacks:** ${job.callbacks ? 'on (polling as fallback)' : 'off (polling)'}`,
    context.businessKey ? `**Business key:** ${oneLine(context.businessKey)}` : undefined,
    context.batchId
      ? `**Batch:** ${oneLine(context.batchId)}${context.batchIndex !== undefined ? ` (job ${context.batchIndex})` : ''}`
      : undefined,
  ];
  return {
    staticSummary,
    staticDetails: lines.filter((l) => l !== undefined).join('\n\n'),
    model,
    priority: {
      priorityKey: job.priority,
      fairnessKey: job.fairnessKey !== DEFAULT_FAIRNESS_KEY ? job.fairnessKey : (context.batchId ?? job.fairnessKey),
    },
  };
}
