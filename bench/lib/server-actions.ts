// The dev server's own count of actions: its Prometheus endpoint (`--metrics-port`) has an `action`
// counter by `action_type` (grpc_StartWorkflowExecution, grpc_SignalWorkflowExecution, ...). Read before
// and after a run, it cross-checks the actions counted from histories (test/support/history-cost.ts) where it
// reports the same kind; it is not Temporal Cloud's meter, so the kinds it leaves out stay uncounted.

/** action_type -> count, for one namespace; undefined when the endpoint cannot be read. */
export async function scrapeActions(
  metricsUrl: string,
  namespace: string,
): Promise<Record<string, number> | undefined> {
  let text: string;
  try {
    const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) return undefined;
    text = await res.text();
  } catch {
    return undefined;
  }
  return parseActions(text, namespace);
}

/** The `action` counter's samples of one namespace in a Prometheus text exposition, by action_type. */
export function parseActions(text: string, namespace: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^action\{([^}]*)\}\s+([0-9.eE+-]+)/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (labels.namespace !== namespace) continue;
    const type = labels.action_type ?? 'unknown';
    out[type] = (out[type] ?? 0) + Number(m[2]);
  }
  return out;
}

const same = (a: Record<string, number>, b: Record<string, number>) =>
  Object.keys({ ...a, ...b }).every((k) => a[k] === b[k]);

/**
 * A reading once the counter has stopped moving: the server reports its metrics on a flush interval, so a
 * reading right after a run may miss its last actions (and give them to the next run).
 */
export async function settledActions(
  metricsUrl: string,
  namespace: string,
): Promise<Record<string, number> | undefined> {
  let last = await scrapeActions(metricsUrl, namespace);
  // The dev server flushes about once a second: two equal readings 1.5 s apart have everything.
  for (let i = 0; last && i < 10; i++) {
    await new Promise((r) => setTimeout(r, 1_500));
    const next = await scrapeActions(metricsUrl, namespace);
    if (!next || same(last, next)) return next;
    last = next;
  }
  return last;
}

export interface ServerActions {
  perJob: number;
  /** action_type -> per job over the run. */
  byType: Record<string, number>;
}

/** What the counter rose by between two readings, per job. */
export function actionsBetween(
  before: Record<string, number> | undefined,
  after: Record<string, number> | undefined,
  jobs: number,
): ServerActions | undefined {
  if (!before || !after || jobs <= 0) return undefined;
  const byType: Record<string, number> = {};
  let total = 0;
  for (const [type, n] of Object.entries(after)) {
    const d = n - (before[type] ?? 0);
    if (d <= 0) continue;
    byType[type] = Math.round((d / jobs) * 100) / 100;
    total += d;
  }
  return { perJob: Math.round((total / jobs) * 100) / 100, byType };
}
