// The two services' base addresses are never the same one (spec: "the base addresses ... of the two services
// are never mixed"), however they are spelled and on every way clients are built: the environment, the
// explicit settings of createClients, and the plugin's options (settings, clients, environment).
import { describe, expect, it } from 'vitest';
import { activitiesFromEnv, createClients, ReviewClient, VideoClient } from '../src/activities/index.js';
import { ConfigError } from '../src/config/env.js';
import { loadServicesConfig } from '../src/config/services.js';
import { ReviewVideoPlugin } from '../src/plugin.js';

const SAME: [string, string] = ['https://gw.example.com', 'https://GW.example.com:443/'];
const env = (video: string, review: string) => ({
  VIDEO_API_BASE_URL: video,
  VIDEO_API_KEY: 'k-test',
  REVIEW_API_BASE_URL: review,
  REVIEW_ACCESS_TOKEN: 't-test',
});
const services = (video: string, review: string) => ({
  video: { baseUrl: video, apiKey: 'k-test' },
  review: { baseUrl: review, accessToken: 't-test' },
});

function thrown(make: () => unknown): Error {
  try {
    make();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected it to throw');
}

describe('the environment', () => {
  it.each([
    ['https://gw.example.com', 'https://gw.example.com'],
    SAME,
    ['http://gw.example.com:80/proxy', 'HTTP://gw.example.com/proxy//'],
  ])('VIDEO_API_BASE_URL %s and REVIEW_API_BASE_URL %s are one address: ConfigError naming both', (v, r) => {
    for (const load of [() => loadServicesConfig(env(v, r)), () => activitiesFromEnv(env(v, r))]) {
      const err = thrown(load);
      expect(err).toBeInstanceOf(ConfigError);
      expect(err.message).toMatch(
        /^invalid configuration: VIDEO_API_BASE_URL and REVIEW_API_BASE_URL must be two different base addresses/,
      );
      expect(err.message).not.toMatch(/k-test|t-test/);
    }
  });

  it('two hosts, or two path prefixes on one gateway, pass', () => {
    expect(() => loadServicesConfig(env('https://video.example.com', 'https://review.example.com'))).not.toThrow();
    expect(() =>
      loadServicesConfig(env('https://gw.example.com/video', 'https://gw.example.com/review')),
    ).not.toThrow();
  });
});

describe('createClients', () => {
  it('refuses one address spelled twice, naming both fields', () => {
    const err = thrown(() => createClients(services(...SAME)));
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toMatch(/^video\.baseUrl and review\.baseUrl must be two different base addresses/);
  });

  it('builds clients for two addresses', async () => {
    const clients = createClients(services('https://gw.example.com/video', 'https://gw.example.com/review'));
    await clients.close();
  });
});

describe('ReviewVideoPlugin options', () => {
  it('explicit settings: refused when the plugin is made, naming services.video.baseUrl and services.review.baseUrl', () => {
    const err = thrown(() => new ReviewVideoPlugin({ services: services(...SAME) }));
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toMatch(
      /^ReviewVideoPlugin: services\.video\.baseUrl and services\.review\.baseUrl must be two different base addresses/,
    );
  });

  it('clients made by the caller: refused when the plugin is made', async () => {
    const video = new VideoClient({
      baseUrl: SAME[0],
      apiKey: 'k-test',
      cancelMethod: 'POST',
      cancelPath: '/v1/task/cancel/{id}',
      timeoutMs: 1_000,
    });
    const review = new ReviewClient({ baseUrl: SAME[1], accessToken: 't-test', timeoutMs: 1_000 });
    try {
      const err = thrown(() => new ReviewVideoPlugin({ clients: { video, review } }));
      expect(err).toBeInstanceOf(TypeError);
      expect(err.message).toMatch(
        /^ReviewVideoPlugin: clients\.video\.baseUrl and clients\.review\.baseUrl must be two different base addresses/,
      );
    } finally {
      await Promise.all([video.close(), review.close()]);
    }
  });

  it('the environment: refused when a worker is configured, naming both variables', () => {
    const plugin = new ReviewVideoPlugin({ env: env(...SAME) });
    const err = thrown(() => plugin.configureWorker({ taskQueue: 'q' }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/VIDEO_API_BASE_URL and REVIEW_API_BASE_URL must be two different base addresses/);
  });

  it('two addresses pass', async () => {
    const plugin = new ReviewVideoPlugin({
      services: services('https://video.example.com', 'https://review.example.com'),
    });
    plugin.configureWorker({ taskQueue: 'q' });
    await plugin.close();
  });
});
