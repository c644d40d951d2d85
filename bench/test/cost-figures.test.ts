// The benchmark's cost and memory figures, from made-up inputs: each job's polls found in the sandbox's log,
// the dev server's `action` counter, and the memory of one cached workflow.
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from 'temporal-review-video-sandbox';
import { perCachedWorkflow } from '../lib/cache-memory.js';
import { pollsByJob } from '../lib/sandbox-metrics.js';
import { actionsBetween, parseActions } from '../lib/server-actions.js';

const entry = (operation: RequestLogEntry['operation'], taskId: string, body?: unknown) =>
  ({ operation, taskId, body, service: operation.startsWith('review') ? 'review' : 'video' }) as RequestLogEntry;

describe('cost figures', () => {
  it("counts each job's own polls, found by the index its submit and create carry", () => {
    const polls = pollsByJob(
      [
        entry('review.submitAsync', 'r1', { items: [{ url: 'https://cdn.example.com/bench/b1-3-x/0.jpg' }] }),
        entry('review.submitAsync', 'r2', { items: [{ url: 'https://cdn.example.com/bench/b1-3-x/1.jpg' }] }),
        entry('review.query', 'r1'),
        entry('review.query', 'r1'),
        entry('review.query', 'r2'),
        entry('video.create', 'v1', { content: [{ type: 'text', text: 'beach [job b1-3-x/0]' }] }),
        entry('video.get', 'v1'),
        entry('video.get', 'v1'),
        entry('video.get', 'v1'),
      ],
      'b1-3-x',
    );
    expect([polls('b1-3-x-0'), polls('b1-3-x-1'), polls('b1-3-x-2')]).toEqual([5, 1, 0]);
  });

  it("reads the dev server's action counter of one namespace, and what a run added per job", () => {
    const text = [
      '# TYPE action counter',
      'action{action_type="grpc_StartWorkflowExecution",namespace="default",operation="StartWorkflowExecution",service_name="frontend"} 12',
      'action{action_type="grpc_StartWorkflowExecution",namespace="temporal_system",operation="StartWorkflowExecution",service_name="frontend"} 2',
      'action{action_type="command_StartTimer",namespace="default",operation="RespondWorkflowTaskCompleted",service_name="frontend"} 4',
    ].join('\n');
    const after = parseActions(text, 'default');
    expect(after).toEqual({ grpc_StartWorkflowExecution: 12, command_StartTimer: 4 });
    expect(actionsBetween({ grpc_StartWorkflowExecution: 2 }, after, 10)).toEqual({
      perJob: 1.4,
      byType: { grpc_StartWorkflowExecution: 1, command_StartTimer: 0.4 },
    });
    expect(actionsBetween(undefined, after, 10)).toBeUndefined();
  });

  it('takes the memory of a cached workflow from the checkpoints before the cache filled, apart by heap', () => {
    const heap = (thread: number, main: number) => ({
      mainUsedMiB: main,
      mainTotalMiB: main,
      threadUsedMiB: thread,
      threadTotalMiB: thread,
      externalMiB: 20,
    });
    const m = perCachedWorkflow({ waitingJobs: 0, cachedWorkflows: 0, rssMiB: 300, heap: heap(30, 60) }, [
      { waitingJobs: 1_000, cachedWorkflows: 1_000, rssMiB: 500, heap: heap(80, 80) },
      { waitingJobs: 2_000, cachedWorkflows: 2_000, rssMiB: 700, heap: heap(130, 100) },
      // Past the cache: garbage of evicted runs, left out.
      { waitingJobs: 3_000, cachedWorkflows: 2_000, rssMiB: 900, heap: heap(300, 100) },
    ])!;
    expect(m).toMatchObject({ points: 3, upToCached: 2_000, rssKiB: 204.8, threadHeapUsedKiB: 51.2 });
    expect(m.nativeKiB).toBeCloseTo(204.8 - 51.2 - 20.5, 0);
    // Workflows cached before the scenario (an earlier one's) are not the scenario's.
    expect(
      perCachedWorkflow({ waitingJobs: 0, cachedWorkflows: 688, rssMiB: 500 }, [
        { waitingJobs: 300, cachedWorkflows: 688, rssMiB: 560 },
      ]),
    ).toBeUndefined();
  });
});
