// Every request the sandbox received, in order, with what it answered: what the tests and the audit read.
import type { RequestLogEntry } from './types.js';

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private seq = 0;

  add(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full = { seq: ++this.seq, ...entry };
    this.entries.push(full);
    return full;
  }

  list(): RequestLogEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
  }
}
