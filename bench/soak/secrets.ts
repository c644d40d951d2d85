// The secret scan of a soak run: every workflow history (payloads decoded; the jobs' and their
// notification deliveries'), every log line of every child process, every error the runner saw, every
// notification the webhook receiver got. It looks for the four secrets, for every signed callback URL the
// services were given (and its signature), and for anything shaped like a callback signature. A hit names
// the source and which secret, never the value.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { callbackUrlSecrets, containsSignedCallbackUrl } from '../../src/callback-signing.js';
import { historyText } from '../../test/support/history-text.js';

export interface Secrets {
  apiKey: string;
  accessToken: string;
  callbackSecret: string;
  /** NOTIFY_SECRET, `whsec_<base64>`: looked for as its key (the base64), with or without the prefix. */
  notifySecret: string;
}

export interface SecretScan {
  histories: number;
  logFiles: number;
  logLines: number;
  errors: number;
  /** Signed callback URLs looked for (each with its signature). */
  signedUrls: number;
  /** Notifications (requests to the webhook receiver: headers and body) scanned. */
  notifications: number;
  hits: Array<{ source: string; secret: keyof Secrets | 'signedCallbackUrl' | 'callbackUrlShape' }>;
}

/** Fetches every history (a few at a time), as text for the scan and the duplicate analysis. */
export async function fetchHistories(
  client: Client,
  workflowIds: string[],
  concurrency = 8,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let next = 0;
  const lane = async () => {
    while (next < workflowIds.length) {
      const id = workflowIds[next++]!;
      for (let attempt = 1; ; attempt++) {
        try {
          out.set(id, historyText(await client.workflow.getHandle(id).fetchHistory()));
          break;
        } catch {
          // A job that never started has no history; anything else is retried a few times.
          if (attempt >= 3) {
            out.set(id, '');
            break;
          }
          await new Promise((r) => setTimeout(r, 500 * attempt));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return out;
}

/** The callback URLs the services were given: in the bodies of the requests the sandbox logged. */
export function signedCallbackUrls(requests: Array<{ body: unknown }>): string[] {
  const urls = requests.map((r) =>
    r.body && typeof r.body === 'object' ? (r.body as { callback_url?: unknown }).callback_url : undefined,
  );
  return [...new Set(urls.filter((u): u is string => typeof u === 'string'))];
}

/** What each secret is looked for as: the notify key without its `whsec_` prefix, which a leak may drop. */
function needles(secrets: Secrets): Secrets {
  return { ...secrets, notifySecret: secrets.notifySecret.replace(/^whsec_/, '') };
}

export function scanForSecrets(
  secrets: Secrets,
  sources: {
    histories: Map<string, string>;
    logDir: string;
    errors: string[];
    signedUrls: string[];
    notifications: Array<{ id: string; headers: Record<string, string>; body: string }>;
  },
): SecretScan {
  const hits: SecretScan['hits'] = [];
  const signed = sources.signedUrls.flatMap(callbackUrlSecrets);
  const check = (source: string, text: string) => {
    for (const [name, value] of Object.entries(needles(secrets)) as Array<[keyof Secrets, string]>) {
      if (value && text.includes(value)) hits.push({ source, secret: name });
    }
    if (signed.some((value) => text.includes(value))) hits.push({ source, secret: 'signedCallbackUrl' });
    else if (containsSignedCallbackUrl(text)) hits.push({ source, secret: 'callbackUrlShape' });
  };
  for (const [id, text] of sources.histories) check(`history ${id}`, text);
  let logLines = 0;
  const files = readdirSync(sources.logDir);
  for (const f of files) {
    const text = readFileSync(join(sources.logDir, f), 'utf8');
    logLines += text.split('\n').length;
    check(`log ${f}`, text);
  }
  sources.errors.forEach((e, i) => check(`error #${i + 1}`, e));
  sources.notifications.forEach((n, i) =>
    check(`notification #${i + 1} (${n.id})`, `${JSON.stringify(n.headers)}\n${n.body}`),
  );
  return {
    histories: sources.histories.size,
    logFiles: files.length,
    logLines,
    errors: sources.errors.length,
    signedUrls: sources.signedUrls.length,
    notifications: sources.notifications.length,
    hits,
  };
}
