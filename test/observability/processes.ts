// Test helpers: the callback receiver as its own process (`src/callbacks/main.ts`), the Prometheus text
// format read into numbers, and JSON log lines read back.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const receiverEntry = fileURLToPath(new URL('../../src/callbacks/main.ts', import.meta.url));

export interface ReceiverProcess {
  pid: number;
  output(): string;
  kill(signal: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

export async function startReceiverProcess(env: Record<string, string>): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', receiverEntry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('callback receiver listening')) resolve();
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    void exited.then((code) => reject(new Error(`receiver exited (${code}) before it was ready:\n${output}`)));
  });
  return { pid: child.pid ?? 0, output: () => output, kill: (s) => child.kill(s), exited };
}

/** Sum of a metric's samples whose labels include `match` (Prometheus text format). */
export function metricSum(text: string, name: string, match: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(match).every(([k, v]) => labels[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** Metric names with samples in a scrape. */
export function metricNames(text: string): Set<string> {
  return new Set(
    text.split('\n').flatMap((l) => (/^[a-zA-Z_:][\w:]*/.exec(l) && !l.startsWith('#') ? [l.split(/[{ ]/)[0]!] : [])),
  );
}

/** Every stdout line, parsed; a line that is not a JSON object fails the test. */
export function jsonLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const v = JSON.parse(l) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`not a JSON object: ${l}`);
      return v as Record<string, unknown>;
    });
}
