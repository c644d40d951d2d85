// Reading golden history files, and how a recorded run ended: shared by the recorder (which refuses to write
// a run that did not end as its path says) and the replay test (which checks the committed files again).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// A CommonJS module: Node's ESM loader (tsx) sees only its default export.
import proto, { type temporal } from '@temporalio/proto';
import type { GoldenHistoryFile } from './paths.js';

const History = proto.temporal.api.history.v1.History;

/**
 * A history as JSON: protobufjs's own `History.toJSON()` form (int64 and bytes as strings, enums by name,
 * timestamps as { seconds, nanos }), read back with `fromGoldenJson`. Not the SDK's historyToJSON /
 * historyFromJSON: with this project's dependency tree they fail ("type must be a Type") because
 * @temporalio/common and @temporalio/proto each get their own copy of protobufjs.
 */
export function toGoldenJson(history: temporal.api.history.v1.IHistory): { events: unknown[] } {
  return History.fromObject(history).toJSON() as { events: unknown[] };
}

/** The History message Worker.runReplayHistories takes, from a file's `history`. */
export function fromGoldenJson(json: { events: unknown[] }): temporal.api.history.v1.History {
  return History.fromObject(json);
}

export const HISTORIES_DIR = fileURLToPath(new URL('./histories/', import.meta.url));

interface JsonEvent {
  eventType?: string;
  workflowExecutionFailedEventAttributes?: { failure?: { applicationFailureInfo?: { type?: string } } };
}

/** `completed`, `cancelled`, `continued-as-new`, `terminated`, `timed-out`, or the failure type of a failed run. */
export function endingOf(history: { events: unknown[] }): string {
  const last = history.events.at(-1) as JsonEvent | undefined;
  switch (last?.eventType) {
    case 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED':
      return 'completed';
    case 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED':
      return 'cancelled';
    case 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW':
      return 'continued-as-new';
    case 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED':
      return last.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo?.type ?? 'failed';
    case 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED':
      return 'terminated';
    case 'EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT':
      return 'timed-out';
    default:
      return `still running (${last?.eventType ?? 'no events'})`;
  }
}

/** The version folders under histories/, oldest first by semver. */
export function recordedVersions(): string[] {
  const semver = (v: string) => v.split(/[.-]/).map((p) => Number(p) || 0);
  return readdirSync(HISTORIES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort((a, b) => {
      const [x, y] = [semver(a), semver(b)];
      for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
      return 0;
    });
}

/** The history files of one version, by file name (the path name plus `.json`). */
export function readVersion(version: string): Array<{ file: string; content: GoldenHistoryFile }> {
  const dir = join(HISTORIES_DIR, version);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({
      file: `${version}/${f}`,
      content: JSON.parse(readFileSync(join(dir, f), 'utf8')) as GoldenHistoryFile,
    }));
}

/** Payloads are base64 in the JSON form: a secret is searched for in the text and in the decoded data. */
export function containsSecret(json: string, secrets: string[]): boolean {
  const decoded = json.replace(/"data":\s*"([A-Za-z0-9+/=]+)"/g, (_m, b64: string) =>
    Buffer.from(b64, 'base64').toString('utf8'),
  );
  return secrets.some((s) => json.includes(s) || decoded.includes(s));
}
