// The codec server: the Temporal Web UI's remote codec endpoint (POST {endpoint}/encode and /decode with
// `{ payloads: [...] }` in protobuf JSON form), so that the UI shows decrypted inputs, results and failures
// while Temporal only ever stores ciphertext. Plain node:http. Browsers are served only for the configured
// UI origins (CORS; any other Origin is refused with 403); with a token, every call needs
// `Authorization: Bearer <token>`. Requests without an Origin (the Temporal CLI's --codec-endpoint) are not
// a browser's: only the token applies to them.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { encryptedWith, PayloadDecryptionError } from './encryption-codec.js';
import { fromJson, payloadsBodySchema, toJson } from './payload-json.js';

/** What the Web UI sends: its own headers and the user's access token when it passes one on. */
const ALLOWED_HEADERS = 'content-type, x-namespace, authorization';

export interface CodecServerOptions {
  /** undefined (no keys): plain payloads pass through; encrypted ones are refused, naming their key id. */
  codec: PayloadCodec | undefined;
  /** Browser origins allowed (the Web UI's, e.g. http://localhost:8080). */
  corsOrigins: string[];
  authToken?: string | undefined;
  host?: string;
  /** 0 = a free port. */
  port?: number;
  /** Larger bodies are refused with 413 (default 16 MiB). */
  maxBodyBytes?: number;
  /** Each answered /encode or /decode call, or refused request: never a payload or a token. */
  onOutcome?: (o: CodecOutcome) => void;
}

export interface CodecOutcome {
  path: string;
  status: number;
  origin: string | undefined;
  namespace: string | undefined;
  /** Why it was refused or failed. */
  reason?: string;
  payloads?: number;
}

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, `body larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Without keys nothing is encrypted or decrypted; an encrypted payload gets a clear refusal. */
const keyless: PayloadCodec = {
  encode: async (payloads) => payloads,
  decode: async (payloads) =>
    payloads.map((p) => {
      const e = encryptedWith(p);
      if (e)
        throw new PayloadDecryptionError(
          `payload encrypted with key id '${e.keyId}' but this codec server has no keys (PAYLOAD_ENCRYPTION_KEYS unset)`,
          e.keyId,
        );
      return p;
    }),
};

export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const codec = options.codec ?? keyless;
  const origins = new Set(options.corsOrigins.map((o) => o.toLowerCase()));
  const expected = options.authToken ? digest(`Bearer ${options.authToken}`) : undefined;
  const limit = options.maxBodyBytes ?? 16 * 1024 * 1024;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://codec').pathname;
    const origin = req.headers.origin;
    const namespace = typeof req.headers['x-namespace'] === 'string' ? req.headers['x-namespace'] : undefined;
    const op = /(?:^|\/)(encode|decode)$/.exec(path)?.[1] as 'encode' | 'decode' | undefined;
    const send = (status: number, body: unknown, extra: Partial<CodecOutcome> = {}) => {
      const text = body === undefined ? '' : JSON.stringify(body);
      res.writeHead(status, text ? { 'content-type': 'application/json' } : {}).end(text);
      if (op || status >= 400) options.onOutcome?.({ path, status, origin, namespace, ...extra });
    };
    if (req.method === 'GET' && path === '/healthz') return send(200, { status: 'ok' });
    if (origin !== undefined) {
      if (!origins.has(origin.toLowerCase()))
        return send(403, { error: 'origin not allowed' }, { reason: 'origin not allowed' });
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
      res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
      res.setHeader('access-control-max-age', '600');
      return send(204, undefined);
    }
    if (!op) return send(404, { error: 'not found: POST /encode or /decode' }, { reason: 'not found' });
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST, OPTIONS');
      return send(405, { error: 'method not allowed' }, { reason: 'method not allowed' });
    }
    if (expected) {
      const given = digest(String(req.headers.authorization ?? ''));
      if (!timingSafeEqual(given, expected)) {
        res.setHeader('www-authenticate', 'Bearer');
        return send(401, { error: 'unauthorized' }, { reason: 'unauthorized' });
      }
    }
    let payloads: Payload[];
    try {
      const parsed = payloadsBodySchema.safeParse(JSON.parse(await readBody(req, limit)));
      if (!parsed.success)
        throw new HttpError(400, 'body must be { "payloads": [{ "metadata"?, "data"? }] } in base64');
      payloads = parsed.data.payloads.map(fromJson);
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 400;
      const message = err instanceof HttpError ? err.message : 'body is not JSON';
      return send(status, { error: message }, { reason: message });
    }
    try {
      const out = op === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
      return send(200, { payloads: out.map(toJson) }, { payloads: payloads.length });
    } catch (err) {
      // A decryption error names the key id only; anything else stays generic (it could quote a payload).
      const message = err instanceof PayloadDecryptionError ? err.message : `${op} failed`;
      return send(err instanceof PayloadDecryptionError ? 400 : 500, { error: message }, { reason: message });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
