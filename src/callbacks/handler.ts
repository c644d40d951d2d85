// The callback receiver as a plain request handler: mount it in a node:http server, an Express app
// (`app.post('/callbacks/*', handler)`) or Fastify (`reply.hijack(); handler(req.raw, reply.raw)`).
// POST {base}/callbacks/{review|video}/{workflowId}?run=...&exp=...&sig=... -> signal `reviewCallback` /
// `videoCallback` to that very run, unless it provably does not need it (forwarding.ts). The signature
// binds the URL to one run and an expiry (callback-signing.ts): a callback of an earlier run of the same
// workflow id, or of a closed run, is answered without a signal.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { requestTarget } from './request-target.js';
import { reviewCallbackSignal, videoCallbackSignal } from '../contract/index.js';
import { decideForward } from './forwarding.js';
import { callbackSignalFrom } from './payload.js';
import { verifyCallbackUrl, type CallbackKind, type CallbackSecrets } from '../callback-signing.js';

export interface CallbackHandlerOptions {
  client: Client;
  /** CALLBACK_SECRET: one key, or several newest first (every one verifies, so a key can be rotated). */
  secret: CallbackSecrets;
  /** Bodies above this are refused with 413 (default 64 KiB): memory stays flat whatever is sent. */
  maxBodyBytes?: number;
  /**
   * A still-working callback of a task the run has not indexed yet is decided again after this long
   * (default 1000 ms; 0: at once), since it is nearly always the run's own task (forwarding.ts).
   */
  stillWorkingRecheckMs?: number;
  /** Called once per request with the outcome; never receives the signature or the body. */
  onOutcome?: (o: {
    kind?: CallbackKind;
    workflowId?: string;
    status: number;
    outcome: string;
    /** From the request's arrival to the answer. */
    durationMs: number;
  }) => void;
}

const PATH = /^(?:.*)\/callbacks\/(review|video)\/([^/?#]+)$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readCallbackBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new HttpError(413, 'body too large'));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, 'body too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', (err) => reject(new HttpError(400, err.message)));
  });
}

function answer(res: ServerResponse, status: number, body: Record<string, unknown>) {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

export function createCallbackHandler(options: CallbackHandlerOptions) {
  const limit = options.maxBodyBytes ?? 64 * 1024;
  return async function handleCallback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let kind: CallbackKind | undefined;
    let workflowId: string | undefined;
    const started = performance.now();
    const done = (status: number, outcome: string) => {
      answer(res, status, { status: outcome });
      const durationMs = performance.now() - started;
      options.onOutcome?.({
        ...(kind ? { kind } : {}),
        ...(workflowId ? { workflowId } : {}),
        status,
        outcome,
        durationMs,
      });
    };
    try {
      const url = requestTarget(req.url);
      if (!url) return done(400, 'bad request target');
      const match = PATH.exec(url.pathname);
      if (!match) return done(404, 'not found');
      kind = match[1] as CallbackKind;
      try {
        workflowId = decodeURIComponent(match[2]!);
      } catch {
        return done(400, 'bad workflow id');
      }
      if (req.method !== 'POST') return done(405, 'method not allowed');
      const verdict = verifyCallbackUrl(options.secret, kind, workflowId, url.searchParams);
      if (!verdict.ok) {
        req.resume();
        // Expired is said only of a genuine signature: a forger learns nothing from it.
        return verdict.reason === 'expired' ? done(410, 'expired') : done(401, 'bad signature');
      }
      const { runId, polls } = verdict;
      const body = await readCallbackBody(req, limit);
      let payload: unknown;
      try {
        payload = JSON.parse(body.toString('utf8'));
      } catch {
        return done(400, 'body is not JSON');
      }
      if (!payload || typeof payload !== 'object' || Array.isArray(payload))
        return done(400, 'body is not a JSON object');
      const callback = callbackSignalFrom(kind, payload);
      const decision = await decideForward(
        options.client,
        { workflowId, runId, polls },
        kind,
        callback,
        options.stillWorkingRecheckMs,
      );
      // The signature named this run: when it is closed (a new run of the same id may be running), or
      // unknown, there is nothing to act on; 202 so the sender does not retry.
      if (decision === 'closed') return done(202, 'ignored (run closed)');
      if (decision === 'not found') return done(202, 'ignored');
      if (decision !== 'forward') return done(202, `not needed (${decision})`);
      const signal = kind === 'review' ? reviewCallbackSignal : videoCallbackSignal;
      try {
        await options.client.workflow.getHandle(workflowId, runId).signal(signal, callback);
      } catch (err) {
        // The run closed between the decision and the signal (a signal to a closed run is not found).
        if (err instanceof WorkflowNotFoundError) return done(202, 'ignored (run closed)');
        return done(503, 'temporarily unavailable');
      }
      return done(202, 'accepted');
    } catch (err) {
      if (err instanceof HttpError) return done(err.status, err.message);
      return done(500, 'internal error');
    }
  };
}
