// The targets table of issue 15 and the README's cost line, from a made-up results file: heartbeats counted
// from the server, actions beyond the polls, every target judged, a hand-written gap kept.
import { describe, expect, it } from 'vitest';
import { summarize } from '../lib/stats.js';
import { PROFILES } from '../profiles.js';
import { jobCost, meanCost } from '../report/cost.js';
import { renderMarkdown } from '../report/markdown.js';
import { costLine, readmeCostLine, withCostLine } from '../report/readme-cost.js';
import { evaluateTargets } from '../report/targets.js';
import { benchMachine, benchRun } from './fixtures.js';
import { fig, sfig, type BenchResults, type WaitingResult } from '../results.js';

const run = benchRun;
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
const waiting: WaitingResult = {
  target: 10_000,
  jobs: 10_000,
  mode: 'callbacks',
  allWaiting: true,
  rampSeconds: fig(400, 's'),
  workerRssIdle: fig(300, 'MiB'),
  workerRssWaiting: fig(480, 'MiB'),
  workerRssPerWaitingJob: fig(18, 'KiB/job'),
  rssSlope: fig(10, 'KiB/job'),
  rssAtTarget: fig(400, 'MiB'),
  cachedWorkflows: fig(688, 'workflows'),
  checkpoints: [],
  maxCachedWorkflows: fig(688, 'workflows'),
  heapLimit: fig(4144, 'MiB'),
  window: fig(10, 's'),
  samples: 100,
  runningActivities: { mean: fig(0, 'activities'), max: fig(0, 'activities'), zeroShare: fig(100, '%') },
  apiCallsDuringWindow: fig(0, 'calls'),
  workerConfig: 'default',
  perCachedWorkflow: { points: 3, upToCached: 500, rssKiB: 100 },
};
const results: BenchResults = {
  name: 'unit',
  command: 'npm run bench',
  quick: false,
  startedAt: '2026-11-23T00:00:00.000Z',
  finishedAt: '2026-11-23T01:20:00.000Z',
  wallTime: fig(4800, 's'),
  machine: benchMachine({}),
  serverCpuAvailable: true,
  profiles: [PROFILES.zero],
  levels: [100],
  workerConfigs: { default: { options: { maxCachedWorkflows: 688 }, bundle: 'package' } },
  mainWorkerConfig: 'default',
  runs: [
    run({
      historyEvents: sfig(summarize([34, 34]), 'events/job'),
      historySample: sample(
        {
          start: 1,
          'activity attempts': 2,
          'local activities': 2,
          signals: 2,
          timers: 2,
          'search-attribute upserts': 1,
        },
        34,
      ),
      serverActions: heartbeats,
      callbackLatency: {
        toConfirmMs: summarize([100, 200]),
        reviewToCreateMs: summarize([250, 900]),
        callbacks: {
          delivered: 2,
          notDelivered: 0,
          final: 2,
          unmatched: 0,
          answeredByFallbackPoll: 0,
          reviewAnsweredByFallbackPoll: 0,
        },
        unit: 'ms',
      },
    }),
    run({
      mode: 'polling',
      throughput: fig(30, 'jobs/s'),
      historyEvents: sfig(summarize([32, 32]), 'events/job'),
      historySample: sample({ start: 1, 'activity attempts': 6, 'search-attribute upserts': 1 }, 32, 4),
      serverActions: heartbeats,
    }),
    run({ kind: 'trivial', mode: undefined, throughput: fig(40, 'jobs/s') }),
  ],
  tuning: [],
  historyIndependence: [],
  waiting: [waiting],
  http: [],
  budget: fig(85, 'min'),
  skipped: [],
  notes: [],
  baseline: {
    file: 'bench/results/old.json',
    startedAt: '2026-11-22T00:00:00.000Z',
    change: 'history-v2',
    rows: [
      {
        figure: 'Worker RSS per cached workflow (slope while every waiting job is cached)',
        before: fig(221, 'KiB'),
        after: fig(100, 'KiB'),
      },
    ],
  },
};

describe('the targets and the README line', () => {
  it('counts the heartbeats, which no history holds, and the actions beyond the polls', () => {
    expect(jobCost(results.runs[0]!)).toMatchObject({ total: 12, fromHistory: 10, events: 34 });
    expect(jobCost(results.runs[1]!)).toMatchObject({ total: 10, polls: 4, beyondPolls: 6 });
    expect(meanCost(results, 'polling')).toEqual({ total: 10, beyondPolls: 6, runs: 1 });
  });

  it('judges every target of issue 15, and a hand-written gap wins over the measured hint', () => {
    const byId = Object.fromEntries(evaluateTargets(results, String).map((t) => [t.id, t]));
    expect(byId['actions-callbacks']).toMatchObject({ met: false });
    expect(byId['actions-polling']).toMatchObject({ met: false });
    expect(byId['events-callbacks']).toMatchObject({ met: true });
    expect(byId['events-polling']).toMatchObject({ met: false });
    expect(byId['throughput-100-callbacks']).toMatchObject({ met: false }); // 10 of 40 jobs/s
    expect(byId['throughput-100-polling']).toMatchObject({ met: true }); // 30 of 40
    expect(byId['throughput-1000-polling']!.met).toBeUndefined();
    expect(byId['callback-create-100']).toMatchObject({ met: true });
    expect(byId['rss-10000']).toMatchObject({ met: true });
    expect(byId['memory-per-cached']).toMatchObject({ met: true }); // 100 KiB against 221 before
    const explained = evaluateTargets({ ...results, gaps: { 'actions-callbacks': 'the heartbeats' } }, String);
    expect(explained.find((t) => t.id === 'actions-callbacks')!.why).toBe('the heartbeats');
    const md = renderMarkdown(results, 'plot.svg');
    expect(md).toContain('## Targets');
    expect(md).toMatch(
      /\| Billable actions per job with callbacks ≤ 10 \| \*\*12\*\* at most .* \| \*\*not met\*\* \|/,
    );
    expect(md).toContain('| activity heartbeats | 2 | 2 |');
  });

  it('writes the cost line between the README markers, and nothing without counted actions', () => {
    const line = costLine(results);
    expect(line).toBe(
      '**Cost:** about 12 actions per job on Temporal Cloud with callbacks (about 6 polling, plus one per poll), measured by `npm run bench` on 2026-11-23 ([BENCHMARKS.md](BENCHMARKS.md)).',
    );
    const readme = 'a\n<!-- bench:cost -->old<!-- /bench:cost -->\nb\n';
    expect(readmeCostLine(withCostLine(readme, line))).toBe(line);
    expect(withCostLine('no markers', line)).toBe('no markers');
    expect(costLine({ ...results, runs: [] })).toBe('');
  });
});
