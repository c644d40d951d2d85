// The plugin's hooks, without a server: what it adds to a worker's options and a bundle's, which clients it
// closes when, and that built from the environment it names a missing variable (never a value) when a
// worker is configured, while a Client given it reads no environment at all.
import { fileURLToPath } from 'node:url';
import type { Worker, WorkerOptions } from '@temporalio/worker';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReviewClient, VideoClient } from '../../src/activities/index.js';
import { ConfigError } from '../../src/config/env.js';
import { REVIEW_VIDEO_PLUGIN_NAME, ReviewVideoPlugin } from '../../src/plugin.js';
import { workflowPreloadModules, workflowsPath } from '../../src/workflows-path.js';
import { reachableFrom } from '../support/import-graph.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

const settings = {
  services: {
    video: { baseUrl: 'https://video.example.com', apiKey: 'k-test' },
    review: { baseUrl: 'https://review.example.com', accessToken: 't-test' },
  },
  callbacks: { publicUrl: 'https://app.example.com/hooks', secret: 'cb-secret-0123456789abcdef' },
};

/** What Worker.create hands a plugin's runWorker: the compiled options keep the functions it was given. */
function fakeWorker(options: WorkerOptions): Worker {
  return { options: { activities: new Map(Object.entries(options.activities ?? {})) } } as unknown as Worker;
}

afterEach(() => vi.restoreAllMocks());

describe('ReviewVideoPlugin', () => {
  it("adds our workflows and rtg* activities next to the worker's own, and our preloaded modules to a bundle", () => {
    const plugin = new ReviewVideoPlugin(settings);
    expect(plugin.name).toBe(REVIEW_VIDEO_PLUGIN_NAME);
    const mine = { myOwnActivity: async () => 'mine' };
    const options = plugin.configureWorker({ taskQueue: 'q', activities: mine });
    expect(options.workflowsPath).toBe(workflowsPath);
    expect(options.activities).toMatchObject(mine);
    const ours = Object.keys(options.activities!).filter((n) => n !== 'myOwnActivity');
    expect(ours.length).toBeGreaterThanOrEqual(6);
    for (const name of ours) expect(name).toMatch(/^rtg[A-Z]/);

    const bundle = plugin.configureBundler({ workflowsPath: '/app/workflows.js', preloadModules: ['/app/mine.js'] });
    expect(bundle).toMatchObject({
      workflowsPath: '/app/workflows.js',
      preloadModules: ['/app/mine.js', ...workflowPreloadModules],
    });
  });

  it("keeps the worker's own workflow code: its workflowsPath (re-exporting ours) or a prebuilt bundle", () => {
    const plugin = new ReviewVideoPlugin(settings);
    expect(plugin.configureWorker({ taskQueue: 'q', workflowsPath: '/app/workflows.js' }).workflowsPath).toBe(
      '/app/workflows.js',
    );
    const bundled = plugin.configureWorker({ taskQueue: 'q', workflowBundle: { codePath: '/app/bundle.js' } });
    expect(bundled.workflowsPath).toBeUndefined();
    expect(plugin.configureReplayWorker({}).workflowsPath).toBe(workflowsPath);
  });

  it("closes each worker's clients when that worker stops, and those of a worker that never ran on close()", async () => {
    const videoClose = vi.spyOn(VideoClient.prototype, 'close');
    const reviewClose = vi.spyOn(ReviewClient.prototype, 'close');
    const plugin = new ReviewVideoPlugin(settings);
    const first = fakeWorker(plugin.configureWorker({ taskQueue: 'q' }));
    plugin.configureWorker({ taskQueue: 'q' }); // created, never run

    let closedWhileRunning = -1;
    await plugin.runWorker(first, async () => {
      closedWhileRunning = videoClose.mock.calls.length;
    });
    expect(closedWhileRunning).toBe(0);
    expect([videoClose.mock.calls.length, reviewClose.mock.calls.length]).toEqual([1, 1]);

    await plugin.close();
    expect([videoClose.mock.calls.length, reviewClose.mock.calls.length]).toEqual([2, 2]);
    await plugin.close();
    expect(videoClose).toHaveBeenCalledTimes(2);
  });

  it('never closes clients it was given', async () => {
    const video = new VideoClient({
      ...settings.services.video,
      cancelMethod: 'POST',
      cancelPath: '/v1/task/cancel/{id}',
      timeoutMs: 1_000,
    });
    const review = new ReviewClient({ ...settings.services.review, timeoutMs: 1_000 });
    const videoClose = vi.spyOn(video, 'close');
    const plugin = new ReviewVideoPlugin({ clients: { video, review } });
    const worker = fakeWorker(plugin.configureWorker({ taskQueue: 'q' }));
    await plugin.runWorker(worker, async () => undefined);
    await plugin.close();
    expect(videoClose).not.toHaveBeenCalled();
    await Promise.all([video.close(), review.close()]);
  });

  it('from the environment: a Client reads nothing; a worker is refused naming the missing variable, never a value', () => {
    const plugin = new ReviewVideoPlugin({ env: { VIDEO_API_KEY: 'super-secret-key' } });
    expect(() => plugin.configureClient({})).not.toThrow();
    let error: unknown;
    try {
      plugin.configureWorker({ taskQueue: 'q' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/VIDEO_API_BASE_URL/);
    expect((error as Error).message).toMatch(/REVIEW_ACCESS_TOKEN/);
    expect((error as Error).message).not.toContain('super-secret-key');
  });

  it('from the environment: the same variables as our worker, callbacks included', () => {
    const plugin = new ReviewVideoPlugin({
      env: {
        VIDEO_API_BASE_URL: settings.services.video.baseUrl,
        VIDEO_API_KEY: 'k',
        REVIEW_API_BASE_URL: settings.services.review.baseUrl,
        REVIEW_ACCESS_TOKEN: 't',
        CALLBACK_PUBLIC_URL: settings.callbacks.publicUrl,
      },
    });
    // CALLBACK_PUBLIC_URL without its secret: the rule of config.ts, reached through the plugin.
    expect(() => plugin.configureWorker({ taskQueue: 'q' })).toThrow(/CALLBACK_SECRET/);
  });

  it('loads @temporalio/worker for types only: the package root, which exports it, stays client-only', () => {
    for (const entry of ['src/plugin.ts', 'src/index.ts']) {
      const packages = [...reachableFrom(`${root}${entry}`, root).values()].flatMap((m) => m.packages);
      expect({ entry, worker: packages.filter((p) => p.startsWith('@temporalio/worker')) }).toEqual({
        entry,
        worker: [],
      });
    }
  });
});
