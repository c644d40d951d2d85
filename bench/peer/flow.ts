// The peer: what a user would write instead of this package. A plain Node script with the same HTTP
// clients and the same flow (submit the review, wait for it by callback or polling, confirm with one
// query, create the video task with the Asset:// address, wait for it the same way), with timers and
// promises in memory: nothing survives a restart, and nothing is recorded anywhere.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReviewClient } from '../../src/services/review/client.js';
import { isFinalReviewStatus, type ReviewTask } from '../../src/model/review/schemas.js';
import type { VideoClient } from '../../src/services/video/client.js';
import { isFinalVideoStatus, type VideoTask } from '../../src/model/video/schemas.js';
import { jobInput, type BenchJob, type Mode } from '../profiles.js';

export interface PeerTiming {
  reviewIntervalMs: number;
  videoIntervalMs: number;
  /** With callbacks: how long to wait for one before polling (as the package's callbackFallbackPollMs). */
  fallbackMs: number;
}

export interface PeerJobResult {
  ok: boolean;
  startMs: number;
  endMs: number;
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** In-memory callback mailbox: a callback that arrives before anyone waits is kept for the waiter. */
class Mailbox {
  private waiters = new Map<string, () => void>();
  private early = new Set<string>();

  deliver(key: string): void {
    const w = this.waiters.get(key);
    if (w) {
      this.waiters.delete(key);
      w();
    } else this.early.add(key);
  }

  /** Resolves true on a callback, false after `ms`. */
  wait(key: string, ms: number): Promise<boolean> {
    if (this.early.delete(key)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        resolve(false);
      }, ms);
      this.waiters.set(key, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

export interface PeerReceiver {
  url: string;
  mailbox: Mailbox;
  close(): Promise<void>;
}

/** POST /cb/{review|video}/{job}: a user's callback endpoint, without signatures (as most would write it). */
export async function startPeerReceiver(): Promise<PeerReceiver> {
  const mailbox = new Mailbox();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/cb\/(review|video)\/(\d+)$/.exec(req.url ?? '');
      let status: string | undefined;
      try {
        status = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { status?: string }).status;
      } catch {
        status = undefined;
      }
      // A running/queued notice needs no action, exactly as in the package's workflow.
      if (m && !(m[1] === 'video' && (status === 'queued' || status === 'running'))) mailbox.deliver(`${m[1]}/${m[2]}`);
      res.writeHead(m ? 202 : 404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    mailbox,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function waitFor<T>(
  mode: Mode,
  mailbox: Mailbox,
  key: string,
  query: () => Promise<T>,
  isFinal: (t: T) => boolean,
  intervalMs: number,
  fallbackMs: number,
): Promise<T> {
  if (mode === 'callbacks') {
    while (await mailbox.wait(key, fallbackMs)) {
      const t = await query();
      if (isFinal(t)) return t;
    }
  }
  for (;;) {
    const t = await query();
    if (isFinal(t)) return t;
    await sleep(intervalMs);
  }
}

export async function runPeerJob(
  i: number,
  job: BenchJob,
  mode: Mode,
  timing: PeerTiming,
  clients: { video: VideoClient; review: ReviewClient },
  receiver: PeerReceiver,
): Promise<PeerJobResult> {
  const startMs = Date.now();
  try {
    const input = jobInput(job, mode, {});
    const cb = (kind: string) => (mode === 'callbacks' ? { callback_url: `${receiver.url}/cb/${kind}/${i}` } : {});
    const accepted = await clients.review.submitAsync({ images: [job.imageUrl], asset_type: 'Image', ...cb('review') });
    const reviewed: ReviewTask = await waitFor(
      mode,
      receiver.mailbox,
      `review/${i}`,
      () => clients.review.getTask(accepted.taskId),
      (t) => isFinalReviewStatus(t.status),
      timing.reviewIntervalMs,
      timing.fallbackMs,
    );
    const asset = reviewed.items.find((it) => it.sourceUrl === job.imageUrl);
    if (reviewed.status !== 'completed' || !asset?.passed || !asset.assetUrl)
      throw new Error(`review ${reviewed.status}`);
    const task = input.task as { content: Array<Record<string, unknown>> };
    const content = task.content.map((c) => (c.image_url ? { ...c, image_url: { url: asset.assetUrl } } : c));
    const { id } = await clients.video.createTask({ ...(input.task as object), content, ...cb('video') } as Parameters<
      VideoClient['createTask']
    >[0]);
    const video: VideoTask = await waitFor(
      mode,
      receiver.mailbox,
      `video/${i}`,
      () => clients.video.getTask(id),
      (t) => isFinalVideoStatus(t.status),
      timing.videoIntervalMs,
      timing.fallbackMs,
    );
    if (video.status !== 'succeeded') throw new Error(`video ${video.status}`);
    return { ok: true, startMs, endMs: Date.now() };
  } catch (err) {
    return { ok: false, startMs, endMs: Date.now(), error: err instanceof Error ? err.message : String(err) };
  }
}
