// The two service profiles every scenario runs with, and the job each benchmark job submits.
//
// - zero: the sandbox answers at once; review and generation take 100 ms and 200 ms. What is left is
//   the cost of the orchestration itself.
// - realistic (scaled): 80 ms per response (a service in another region), and review/generation times
//   and poll intervals scaled down 10x from production (review 2-5 s -> 0.2-0.5 s, video 10-30 s ->
//   1-3 s, query intervals 2 s / 10 s -> 0.2 s / 1 s). Scaling keeps the number of polls per job what
//   it would be in production while letting thousands of jobs finish in minutes. The response latency
//   is not scaled: it is what connection pools and in-flight calls have to absorb.
import type { Client } from '@temporalio/client';
import { startReviewThenGenerate } from '../src/client/start.js';
import type { ReviewThenGenerateInput, Timing } from '../src/job/input.js';
import { seededRandom } from './lib/stats.js';

export type ProfileName = 'zero' | 'realistic';

export interface Profile {
  name: ProfileName;
  description: string;
  latencyMs: number;
  reviewMs: [number, number];
  videoMs: [number, number];
  /** Timing input of every job (the rest are the package defaults). */
  timing: Partial<Timing>;
}

export const PROFILES: Record<ProfileName, Profile> = {
  zero: {
    name: 'zero',
    description:
      'sandbox latency 0 ms; review 100 ms, generation 200 ms; poll intervals 100 ms (review) and 100 ms (video)',
    latencyMs: 0,
    reviewMs: [100, 100],
    videoMs: [200, 200],
    timing: { reviewMinQueryIntervalMs: 100, videoPollIntervalMs: 100 },
  },
  realistic: {
    name: 'realistic',
    description:
      'sandbox latency 80 ms per response; review 200-500 ms, generation 1-3 s (uniform, seeded); poll intervals 200 ms (review) and 1 s (video): production times scaled down 10x, latency not scaled',
    latencyMs: 80,
    reviewMs: [200, 500],
    videoMs: [1_000, 3_000],
    timing: { reviewMinQueryIntervalMs: 200, videoPollIntervalMs: 1_000 },
  },
};

export type Mode = 'callbacks' | 'polling';

export interface BenchJob {
  imageUrl: string;
  /** Text in the prompt that identifies the job to the sandbox's scripted outcomes. */
  marker: string;
  reviewMs: number;
  videoMs: number;
}

/** The jobs of one run: unique image URL and prompt marker each, durations drawn from the profile. */
export function planJobs(label: string, n: number, profile: Profile, seed = 7): BenchJob[] {
  const random = seededRandom(seed);
  const draw = ([lo, hi]: [number, number]) => Math.round(lo + (hi - lo) * random());
  return Array.from({ length: n }, (_, i) => ({
    imageUrl: `https://cdn.example.com/bench/${label}/${i}.jpg`,
    marker: `[job ${label}/${i}]`,
    reviewMs: draw(profile.reviewMs),
    videoMs: draw(profile.videoMs),
  }));
}

export function jobInput(job: BenchJob, mode: Mode, timing: Partial<Timing>): ReviewThenGenerateInput {
  return {
    task: {
      model: 'video-model-1',
      content: [
        { type: 'text', text: `A person walks along the beach at sunset ${job.marker}` },
        { type: 'image_url', image_url: { url: job.imageUrl }, role: 'reference_image' },
      ],
      ratio: '16:9',
      duration: 5,
      resolution: '720p',
    },
    review: {},
    callbacks: mode === 'callbacks',
    timing,
  };
}

/**
 * Starts job i the way a user's service does: through the package's client helper (validation, search
 * attributes, summary, business key), with the burst's label as the batch id (BatchId search attribute).
 */
export function packageStarter(
  client: Client,
  taskQueue: string,
  label: string,
  jobs: BenchJob[],
  mode: Mode,
  timing: Partial<Timing>,
) {
  return (i: number) =>
    startReviewThenGenerate(client, {
      businessKey: `${label}-${i}`,
      taskQueue,
      input: { ...jobInput(jobs[i]!, mode, timing), batchId: label },
    });
}
