// The generated video files of the video service: real bytes (deterministic per task, of a configurable
// size) streamed from signed addresses that expire, with scripted faults: a reset after some bytes, or a
// slow body. Nothing is held in memory but one 64 KiB block per download.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorReply, type Reply } from './reply.js';
import type { VideoFileFault } from './types.js';

const BLOCK = 64 * 1024;

interface Armed {
  fault: VideoFileFault;
  remaining: number;
}

export class VideoFiles {
  readonly #secret = randomBytes(32);
  /** Addresses signed in an earlier generation are expired (`expireAll`). */
  #generation = 0;
  #faults: Armed[] = [];
  readonly #issued = new Map<string, { url: string; expires: number; gen: number }>();

  constructor(private readonly options: { bytes: number; ttlMs: number }) {}

  /**
   * The signed address of a task's file, the same in every record until it expires (`ttlMs` after it was
   * first handed out, or at `expireAll()`); then a fresh one. The signature is a path segment, so the
   * address still ends in `/{id}.mp4`.
   */
  address(baseUrl: string, taskId: string): string {
    const now = Date.now();
    const cached = this.#issued.get(taskId);
    if (cached && cached.gen === this.#generation && now < cached.expires) return cached.url;
    const expires = now + this.options.ttlMs;
    const gen = this.#generation;
    const token = `${expires}-${gen}-${this.#sign(taskId, expires, gen)}`;
    const url = `${baseUrl}/videos/${token}/${encodeURIComponent(taskId)}.mp4`;
    this.#issued.set(taskId, { url, expires, gen });
    return url;
  }

  expireAll(): void {
    this.#generation += 1;
  }

  addFault(fault: VideoFileFault): void {
    const times = fault.times ?? 1;
    if (!(times > 0)) throw new Error(`video file fault times must be > 0 (got ${times})`);
    this.#faults.push({ fault, remaining: times });
  }

  reset(): void {
    this.#faults = [];
    this.#issued.clear();
  }

  /** The answer to GET /videos/{token}/{id}.mp4: 403 for a missing, forged or expired signature. */
  reply(token: string, taskId: string): Reply {
    const [expiresText, genText, sig = ''] = token.split('-');
    const expires = Number(expiresText);
    const gen = Number(genText);
    const want = Buffer.from(this.#sign(taskId, expires, gen));
    if (sig.length !== want.length || !timingSafeEqual(Buffer.from(sig), want))
      return errorReply(403, 'signature_invalid', 'the video address is not signed by this service');
    const fault = this.#takeFault();
    if (Date.now() >= expires || gen !== this.#generation || fault?.mode === 'expired')
      return errorReply(403, 'url_expired', 'the video address has expired; query the task for a fresh one');
    return {
      status: 200,
      contentType: 'video/mp4',
      headers: { 'content-length': String(this.options.bytes) },
      stream: Readable.from(videoBytes(taskId, this.options.bytes, fault)),
    };
  }

  #sign(taskId: string, expires: number, gen: number): string {
    return createHmac('sha256', this.#secret).update(`${taskId}\n${expires}\n${gen}`).digest('hex');
  }

  #takeFault(): VideoFileFault | undefined {
    const hit = this.#faults[0];
    if (!hit) return undefined;
    hit.remaining -= 1;
    if (hit.remaining <= 0) this.#faults.shift();
    return hit.fault;
  }
}

/** The bytes of a task's file: a 64 KiB block derived from the task id, repeated. */
export function videoBlock(taskId: string): Buffer {
  const block = Buffer.alloc(BLOCK);
  for (let i = 0; i < BLOCK / 32; i++)
    createHash('sha256')
      .update(`${taskId}:${i}`)
      .digest()
      .copy(block, i * 32);
  return block;
}

async function* videoBytes(taskId: string, total: number, fault: VideoFileFault | undefined) {
  const block = videoBlock(taskId);
  const chunk = fault?.mode === 'slow' ? Math.max(1, Math.min(BLOCK, Math.floor(fault.bytesPerSecond / 10))) : BLOCK;
  for (let sent = 0; sent < total;) {
    if (fault?.mode === 'reset' && sent >= fault.afterBytes) throw new Error('sandbox fault: connection reset');
    const n = Math.min(chunk, total - sent, fault?.mode === 'reset' ? Math.max(fault.afterBytes - sent, 1) : chunk);
    const offset = sent % BLOCK;
    const part =
      offset + n <= BLOCK
        ? block.subarray(offset, offset + n)
        : Buffer.concat([block, block]).subarray(offset, offset + n);
    sent += n;
    yield part;
    if (fault?.mode === 'slow') await sleep((n / fault.bytesPerSecond) * 1000);
  }
}
