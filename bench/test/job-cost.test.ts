// What a job costs, from made-up runs: the heartbeats, which no history holds, come from the dev server's
// counter; a polling job's actions beyond its polls; the mean over a mode's runs that the README states.
import { describe, expect, it } from 'vitest';
import { jobCost, meanCost } from '../lib/job-cost.js';
import { summarize } from '../lib/stats.js';
import { fig, sfig, type BenchResults } from '../results.js';
import { benchRun } from './fixtures.js';

const sample = (byKind: Record<string, number>, events: number, polls?: number) => {
  const actions = Object.values(byKind).reduce((a, b) => a + b, 0);
  return {
    sampled: 5,
    eventsPerJob: { min: events, max: events, mean: events },
    byType: { WorkflowExecutionStarted: 1 },
    reviewCallbackBeforeSubmitResult: 0,
    cost: {
      actionsPerJob: { min: actions, max: actions, mean: actions },
      byKind,
      ...(polls !== undefined
        ? { pollsPerJob: polls, actionsBeyondPolls: { min: 0, max: 0, mean: actions - polls } }
        : {}),
    },
  };
};
const heartbeats = { perJob: 2, byType: { grpc_RecordActivityTaskHeartbeat: 2 } };
const callbacks = benchRun({
  historyEvents: sfig(summarize([34, 34]), 'events/job'),
  historySample: sample(
    { start: 1, 'activity attempts': 2, 'local activities': 2, signals: 2, timers: 2, 'search-attribute upserts': 1 },
    34,
  ),
  serverActions: heartbeats,
});
const polling = benchRun({
  mode: 'polling',
  throughput: fig(30, 'jobs/s'),
  historyEvents: sfig(summarize([32, 32]), 'events/job'),
  historySample: sample({ start: 1, 'activity attempts': 6, 'search-attribute upserts': 1 }, 32, 4),
  serverActions: heartbeats,
});

describe('job cost', () => {
  it('counts the heartbeats, which no history holds, and the actions beyond the polls', () => {
    expect(jobCost(callbacks)).toMatchObject({ total: 12, fromHistory: 10, events: 34 });
    expect(jobCost(polling)).toMatchObject({ total: 10, polls: 4, beyondPolls: 6 });
    expect(jobCost(benchRun({}))).toBeUndefined();
  });

  it("averages a mode's runs that have a cost, and nothing for a mode without one", () => {
    const r = { runs: [callbacks, polling, benchRun({ kind: 'trivial', mode: undefined })] } as BenchResults;
    expect(meanCost(r, 'polling')).toEqual({ total: 10, beyondPolls: 6, runs: 1 });
    expect(meanCost(r, 'callbacks')).toEqual({ total: 12, runs: 1 });
    expect(meanCost({ runs: [polling] } as BenchResults, 'callbacks')).toBeUndefined();
  });
});
