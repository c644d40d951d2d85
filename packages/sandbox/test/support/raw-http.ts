// Raw bytes to an HTTP server over node:net: no client library to fix up lengths, headers or framing.
import { connect } from 'node:net';

export interface RawExchange {
  /** Status codes of every response on the connection, in order. */
  statuses: number[];
  /** The server closed the connection (or it was reset) before the time-out. */
  closed: boolean;
  bytes: number;
}

/**
 * Sends `payload`; after `halfCloseAfterMs` (0 = at once) ends our side, so a request the server is still
 * waiting on must be answered or dropped. Resolves when the server closes, or after `timeoutMs` with
 * `closed: false` (a hang).
 */
export function sendRaw(
  port: number,
  payload: Buffer,
  o: { halfCloseAfterMs?: number; timeoutMs?: number } = {},
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let halfClose: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      clearTimeout(halfClose);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ statuses, closed, bytes: text.length });
    };
    const timer = setTimeout(() => finish(false), o.timeoutMs ?? 10_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    socket.on('end', () => socket.end());
    socket.on('connect', () => {
      socket.write(payload, () => {
        const end = () => socket.writable && socket.end();
        if (!o.halfCloseAfterMs) end();
        else halfClose = setTimeout(end, o.halfCloseAfterMs);
      });
    });
  });
}
