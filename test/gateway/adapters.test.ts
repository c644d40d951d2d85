// The task adapters are data: each entry point reads its public-API shape first and common wrappings
// next; a state nobody listed is unknown (never final); every entry point's query path exists.
import { describe, expect, it } from 'vitest';
import { GATEWAY_ENDPOINTS } from '../../src/model/video/gateway-endpoints.js';
import {
  COMMON_STATES,
  GATEWAY_TASK_ENTRY_POINTS,
  isFinalReading,
  queryEndpointOf,
  readGatewayTask,
  TASK_ADAPTERS,
  type TaskReading,
} from '../../src/model/video/gateway-adapters.js';
import { RECORDED_BODIES } from './fixtures/recorded-task-bodies.js';

describe('readGatewayTask', () => {
  it('reads each entry point in the shape of the public API of its path', () => {
    expect(
      readGatewayTask('unifiedVideo', { task_id: 't1', status: 'succeeded', url: 'https://x/v.mp4' }),
    ).toMatchObject({ taskId: 't1', reading: 'succeeded', final: true, url: 'https://x/v.mp4' });
    expect(
      readGatewayTask('vendorA', {
        code: 0,
        data: {
          task_id: '842250903629086785',
          task_status: 'succeed',
          task_result: { videos: [{ url: 'https://x/a.mp4' }] },
        },
      }),
    ).toMatchObject({ taskId: '842250903629086785', state: 'succeed', reading: 'succeeded', url: 'https://x/a.mp4' });
    expect(
      readGatewayTask('vendorA', { data: { task_id: 'a', task_status: 'failed', task_status_msg: 'content policy' } }),
    ).toMatchObject({
      reading: 'failed',
      final: true,
      error: { message: 'content policy' },
    });
    expect(readGatewayTask('vendorB', { task_id: 'b', state: 'created' })).toMatchObject({
      taskId: 'b',
      reading: 'pending',
      final: false,
    });
    expect(readGatewayTask('vendorB', { id: 'b', state: 'failed', err_code: 'AuditSubmitIllegal' })).toMatchObject({
      reading: 'failed',
      error: { code: 'AuditSubmitIllegal' },
    });
    expect(readGatewayTask('videos', { id: 'video_1', object: 'video', status: 'in_progress' })).toMatchObject({
      taskId: 'video_1',
      reading: 'pending',
    });
    expect(
      readGatewayTask('videos', { id: 'video_1', status: 'failed', error: { code: 'moderation', message: 'blocked' } }),
    ).toMatchObject({ error: { code: 'moderation', message: 'blocked' } });
    expect(
      readGatewayTask('aigcImages', {
        code: 'success',
        data: { task_id: 'i1', status: 'SUCCESS', images: [{ url: 'https://x/i.png' }] },
      }),
    ).toMatchObject({
      taskId: 'i1',
      reading: 'succeeded',
      url: 'https://x/i.png',
    });
  });

  it('falls back to common wrappings, case and separators', () => {
    // A gateway that wraps vendor A in its own unified task object.
    expect(
      readGatewayTask('vendorA', { code: 'success', data: { task_id: '9', status: 'IN_PROGRESS', progress: '40%' } }),
    ).toMatchObject({ taskId: '9', state: 'IN_PROGRESS', reading: 'pending' });
    expect(readGatewayTask('unifiedVideo', { data: { id: 7, state: 'Completed' } })).toMatchObject({
      taskId: '7',
      reading: 'succeeded',
    });
    expect(readGatewayTask('videos', { id: 'v', status: 'in-progress' }).reading).toBe('pending');
    expect(readGatewayTask('unifiedVideo', { task_id: 'c', status: 'canceled' }).reading).toBe('cancelled');
    expect(readGatewayTask('unifiedVideo', { task_id: 'e', status: 'expired' }).reading).toBe('expired');
  });

  it('an unknown or missing state is unknown, never final; junk never throws', () => {
    expect(readGatewayTask('vendorA', { data: { task_id: 'a', task_status: 'moderating' } })).toMatchObject({
      state: 'moderating',
      reading: 'unknown',
      final: false,
    });
    expect(readGatewayTask('videos', { id: 'v' })).toMatchObject({
      state: undefined,
      reading: 'unknown',
      final: false,
    });
    for (const junk of [undefined, null, 'text', 42, [], { data: [] }, { status: { nested: true } }]) {
      expect(readGatewayTask('aigcImages', junk).final).toBe(false);
    }
  });
});

describe('the adapter table', () => {
  it('every asynchronous entry point creates on a create endpoint and queries on query endpoints', () => {
    for (const e of GATEWAY_TASK_ENTRY_POINTS) {
      const a = TASK_ADAPTERS[e];
      expect(GATEWAY_ENDPOINTS[a.create].kind).toBe('create');
      for (const q of Object.values(a.queries)) {
        expect(GATEWAY_ENDPOINTS[q!].kind).toBe('query');
        expect(GATEWAY_ENDPOINTS[q!].path).toContain(`{${a.queryParam}}`);
      }
    }
  });

  it('vendor A picks its query path by kind; the others have one', () => {
    expect(queryEndpointOf('vendorA')).toBe('vendorAText2VideoGet');
    expect(queryEndpointOf('vendorA', 'image2video')).toBe('vendorAImage2VideoGet');
    expect(queryEndpointOf('vendorA', 'omni-video')).toBe('vendorAOmniVideoGet');
    expect(queryEndpointOf('vendorA', 'default')).toBeUndefined();
    expect(queryEndpointOf('videos', 'omni-video')).toBeUndefined();
    expect(queryEndpointOf('vendorB')).toBe('vendorBTaskGet');
  });
});

// Issue 37: recorded bodies of the public APIs (fixtures/recorded-task-bodies.ts names each source), and
// every state value an adapter claims, read as claimed (defect 5: the unified `timeout` was never final).
describe('recorded bodies of the public APIs', () => {
  it.each(RECORDED_BODIES)('$entryPoint $expected.state: $source', ({ entryPoint, body, expected }) => {
    const view = readGatewayTask(entryPoint, body);
    expect(view).toMatchObject({
      taskId: expected.taskId,
      state: expected.state,
      reading: expected.reading,
      final: isFinalReading(expected.reading),
    });
    expect(view.url).toBe(expected.url);
    if (expected.error) expect(view.error).toMatchObject(expected.error);
  });

  it('covers every entry point that has a public counterpart', () => {
    const covered = new Set(RECORDED_BODIES.map((r) => r.entryPoint));
    expect([...covered].sort()).toEqual(['unifiedVideo', 'vendorA', 'vendorB', 'videos']);
  });
});

describe('every vocabulary an adapter claims', () => {
  const claimed = GATEWAY_TASK_ENTRY_POINTS.flatMap((e) =>
    [TASK_ADAPTERS[e].states, COMMON_STATES].flatMap((table) =>
      (Object.entries(table) as Array<[TaskReading, readonly string[] | undefined]>).flatMap(([reading, values]) =>
        (values ?? []).map((value) => ({ entryPoint: e, value, reading })),
      ),
    ),
  );

  it.each(claimed)('$entryPoint: "$value" reads $reading', ({ entryPoint, value, reading }) => {
    // An adapter's own word wins over a common one of the same spelling; none here disagree.
    const view = readGatewayTask(entryPoint, {
      task_id: 't',
      status: value,
      data: { task_id: 't', task_status: value },
    });
    expect(view.reading).toBe(reading);
    expect(view.final).toBe(isFinalReading(reading));
  });

  it('a unified-video `timeout` is a final failure, in any case and separator', () => {
    for (const s of ['timeout', 'TIMEOUT', 'timed_out', 'timed-out'])
      expect(readGatewayTask('unifiedVideo', { task_id: 't', status: s })).toMatchObject({
        reading: 'failed',
        final: true,
      });
  });
});
