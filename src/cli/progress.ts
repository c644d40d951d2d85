// Batch progress on the terminal: a redrawn bar when stderr is a TTY, plain lines (only when something
// changed) otherwise, so logs and CI output stay readable.
import type { BatchProgress } from '../job/batch-input.js';

const WIDTH = 30;

export function progressText(p: BatchProgress): string {
  const of = p.total !== undefined ? `/${p.total}` : '';
  return `${p.done}${of} done · ${p.succeeded} succeeded · ${p.failed} not succeeded · ${p.running} running · run ${p.run}`;
}

export function progressBar(p: BatchProgress): string {
  if (p.total === undefined || p.total === 0) return `[${'?'.repeat(WIDTH)}] ${progressText(p)}`;
  const ratio = Math.min(1, p.done / p.total);
  const filled = Math.round(ratio * WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${progressText(p)}`;
}

export interface ProgressReporter {
  update(p: BatchProgress): void;
  end(): void;
}

export function progressReporter(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  let last = '';
  let drawn = false;
  if (stream.isTTY) {
    return {
      update(p) {
        const line = progressBar(p).slice(0, Math.max(40, (stream.columns || 120) - 1));
        if (line === last) return;
        stream.write(`\r\x1b[2K${line}`);
        last = line;
        drawn = true;
      },
      end() {
        if (drawn) stream.write('\n');
      },
    };
  }
  return {
    update(p) {
      const line = `progress: ${progressText(p)}`;
      if (line !== last) stream.write(`${line}\n`);
      last = line;
    },
    end() {},
  };
}
