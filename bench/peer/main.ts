// The peer as its own process (as a user would run it): N jobs at once, then one report to the parent.
// Configuration comes as JSON in BENCH_PEER_CONFIG.
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';
import { planJobs, PROFILES, type Mode, type ProfileName } from '../profiles.js';
import { runPeerJob, startPeerReceiver, type PeerJobResult, type PeerTiming } from './flow.js';

export interface PeerConfig {
  label: string;
  n: number;
  profile: ProfileName;
  mode: Mode;
  timing: PeerTiming;
  video: { baseUrl: string; apiKey: string };
  review: { baseUrl: string; accessToken: string };
  httpTimeoutMs: number;
}

export interface PeerReport {
  results: PeerJobResult[];
  cpuMicros: { user: number; system: number };
  peakRssBytes: number;
}

const config = JSON.parse(process.env.BENCH_PEER_CONFIG ?? '{}') as PeerConfig;
const video = new VideoClient({
  baseUrl: config.video.baseUrl,
  apiKey: config.video.apiKey,
  cancelMethod: 'POST',
  cancelPath: '/v1/task/cancel/{id}',
  timeoutMs: config.httpTimeoutMs,
  allowPrivateUrls: true,
});
// The peer's callback receiver listens on loopback.
const review = new ReviewClient({
  baseUrl: config.review.baseUrl,
  accessToken: config.review.accessToken,
  timeoutMs: config.httpTimeoutMs,
  allowPrivateUrls: true,
});
const receiver = await startPeerReceiver();
let peakRssBytes = process.memoryUsage.rss();
const sampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss())), 100);
const cpu0 = process.cpuUsage();
const jobs = planJobs(config.label, config.n, PROFILES[config.profile]);
const results = await Promise.all(
  jobs.map((job, i) => runPeerJob(i, job, config.mode, config.timing, { video, review }, receiver)),
);
const cpuMicros = process.cpuUsage(cpu0);
clearInterval(sampler);
await Promise.allSettled([receiver.close(), video.close(), review.close()]);
// Disconnect only once the (possibly large) report has been handed over.
process.send?.({ results, cpuMicros, peakRssBytes } satisfies PeerReport, () => process.disconnect?.());
