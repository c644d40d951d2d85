// Every rule of the review submit body (spec: review submit body, media rules, limits) is checked before
// sending: each case shows the field and the rule, and a real local server proves that no request (not
// even a connection) left the process.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/model/validation.js';
import { ReviewClient } from '../../src/services/review/client.js';
import type { ReviewSubmitBody } from '../../src/model/review/schemas.js';
import { caught, reviewConfig } from '../support/service-configs.js';
import { PRIVATE_HOSTS } from '../support/private-hosts.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const jpg = (name = 'a') => `https://cdn.example.com/media/${name}.jpg`;
const mp4 = (name = 'a') => `https://cdn.example.com/media/${name}.mp4`;

// [what is broken, body, field, rule text]
const cases: Array<[string, unknown, string, string]> = [
  ['images is required', { asset_type: 'Image' }, 'images', 'is required (1 to 50 public http or https URLs)'],
  ['images is an array', { images: jpg() }, 'images', 'must be an array of URLs'],
  ['images holds at least 1 URL', { images: [] }, 'images', 'must hold at least 1 URL'],
  [
    'images holds at most 50 URLs',
    { images: Array.from({ length: 51 }, (_, i) => jpg(`p${i}`)) },
    'images',
    'must hold at most 50 URLs',
  ],
  ['URLs are strings', { images: [jpg(), 42] }, 'images[1]', 'must be a string (a public http or https URL)'],
  [
    'URLs are http or https',
    { images: ['ftp://cdn.example.com/a.jpg'] },
    'images[0]',
    'must be a public http or https URL',
  ],
  [
    'Asset:// is not a review input',
    { images: ['Asset://asset-1'] },
    'images[0]',
    'must be a public http or https URL',
  ],
  [
    'localhost is not public',
    { images: [jpg(), 'http://localhost:8080/a.jpg'] },
    'images[1]',
    'must be a public http or https URL (localhost is a localhost name (RFC 6761), not a public host)',
  ],
  [
    'loopback 127/8 is not public',
    { images: ['http://127.0.0.2/a.jpg'] },
    'images[0]',
    '127.0.0.2 is a loopback address (127.0.0.0/8), not a public one',
  ],
  [
    'private 10/8 is not public',
    { images: ['https://10.20.30.40/a.jpg'] },
    'images[0]',
    '10.20.30.40 is a private address (10.0.0.0/8)',
  ],
  [
    'private 172.16/12 is not public',
    { images: ['https://172.31.255.1/a.jpg'] },
    'images[0]',
    '172.31.255.1 is a private address (172.16.0.0/12)',
  ],
  [
    'private 192.168/16 is not public',
    { images: ['https://192.168.1.10/a.jpg'] },
    'images[0]',
    '192.168.1.10 is a private address (192.168.0.0/16)',
  ],
  [
    'link-local 169.254/16 is not public',
    { images: ['http://169.254.169.254/a.jpg'] },
    'images[0]',
    '169.254.169.254 is a link-local address (169.254.0.0/16)',
  ],
  [
    'IPv6 loopback is not public',
    { images: ['http://[::1]:9000/a.jpg'] },
    'images[0]',
    '::1 is the loopback address (::1/128)',
  ],
  [
    'numeric host forms are read as the address they mean',
    { images: ['http://2130706433/a.jpg'] },
    'images[0]',
    '127.0.0.1 is a loopback address (127.0.0.0/8)',
  ],
  [
    'the host is the one the URL parser reads (a backslash ends it)',
    { images: ['http://127.0.0.1\\@media.example.com/x.jpg'] },
    'images[0]',
    'must be a public http or https URL (127.0.0.1 is a loopback address (127.0.0.0/8), not a public one)',
  ],
  [
    'carrier-grade NAT 100.64/10 is not public',
    { images: ['http://100.64.0.1/x.jpg'] },
    'images[0]',
    '100.64.0.1 is a carrier-grade NAT address (100.64.0.0/10), not a public one',
  ],
  [
    'extension is supported',
    { images: ['https://cdn.example.com/a.txt'] },
    'images[0]',
    'must end with a supported extension (Image: .jpeg .jpg .png',
  ],
  [
    'extension is present',
    { images: ['https://cdn.example.com/media/a'] },
    'images[0]',
    'must end with a supported extension',
  ],
  [
    'one type per batch',
    { images: [jpg(), mp4()] },
    'images',
    'all URLs of one batch must be of one type (found Image and Video)',
  ],
  [
    'asset_type defaults to Image',
    { images: [mp4()] },
    'asset_type',
    'must be Video for these URLs (when absent the service assumes Image)',
  ],
  [
    'asset_type matches the URLs',
    { images: [mp4()], asset_type: 'Audio' },
    'asset_type',
    'is Audio but the URLs are Video',
  ],
  [
    'asset_type is known',
    { images: [jpg()], asset_type: 'Picture' },
    'asset_type',
    'must be one of Image, Video, Audio',
  ],
  [
    'group_source is empty or real_person when group_id is sent',
    { images: [jpg()], group_id: 'g-1', group_source: 'celebrity' },
    'group_source',
    "must be '' or 'real_person' when group_id is sent",
  ],
  ['group_source is a string', { images: [jpg()], group_source: 1 }, 'group_source', 'must be a string'],
  ['group_id is non-empty', { images: [jpg()], group_id: '' }, 'group_id', 'must be a non-empty string'],
  [
    'callback_url is http(s)',
    { images: [jpg()], callback_url: 'hooks.example.com/review' },
    'callback_url',
    'must be a public http(s) URL',
  ],
  // Public: every kind of private address, in images, asset_url_list and callback_url.
  ...PRIVATE_HOSTS.flatMap(([kind, host]): Array<[string, unknown, string, string]> => [
    [
      `images at ${kind}`,
      { images: [jpg(), `http://${host}:8080/a.jpg`] },
      'images[1]',
      'must be a public http or https URL (',
    ],
    [
      `asset_url_list at ${kind}`,
      { asset_url_list: [`https://${host}/a.png`] },
      'asset_url_list[0]',
      'must be a public http or https URL (',
    ],
    [
      `callback_url at ${kind}`,
      { images: [jpg()], callback_url: `http://${host}:8787/callbacks/review` },
      'callback_url',
      'must be a public http(s) URL (',
    ],
  ]),
  [
    'asset_url_list wins and is the list checked',
    { images: [jpg()], asset_url_list: [jpg(), 'http://192.168.0.5/b.jpg'] },
    'asset_url_list[1]',
    '192.168.0.5 is a private address (192.168.0.0/16)',
  ],
  [
    'asset_url_list holds at least 1 URL',
    { images: [jpg()], asset_url_list: [] },
    'asset_url_list',
    'must hold at least 1 URL',
  ],
  [
    'asset_url_list obeys one type per batch',
    { asset_url_list: [jpg(), mp4()] },
    'asset_url_list',
    'all URLs of one batch must be of one type',
  ],
  ['body is an object', [jpg()], '(body)', 'must be a JSON object'],
];

describe('ReviewClient submit validation: nothing is sent', () => {
  let server: TestServer;
  let client: ReviewClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = new ReviewClient(reviewConfig(server.url));
  });
  afterEach(() => {
    expect(server.received).toHaveLength(0);
    expect(server.connections()).toBe(0);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it.each(cases)('%s', async (_name, input, field, rule) => {
    for (const submit of [client.submitAsync.bind(client), client.submitSync.bind(client)]) {
      const err = await caught(submit(input as ReviewSubmitBody));
      expect(err).toBeInstanceOf(RequestValidationError);
      const { issues, message } = err as RequestValidationError;
      const issue = issues.find((i) => i.field === field && i.rule.includes(rule));
      expect(issue, JSON.stringify(issues)).toBeDefined();
      expect(message).toContain(`${issue!.field}: ${issue!.rule}`);
      expect(message).toMatch(/^review\.submit(Async|Sync) rejected before sending/);
    }
  });

  it('reports every broken rule at once', async () => {
    const err = (await caught(
      client.submitAsync({
        images: ['http://localhost/a.jpg', 'https://cdn.example.com/b.doc'],
        callback_url: 'http://10.0.0.2/cb',
        group_id: 'g',
        group_source: 'vip',
      } as ReviewSubmitBody),
    )) as RequestValidationError;
    expect(err.issues.map((i) => i.field)).toEqual(['images[0]', 'images[1]', 'callback_url', 'group_source']);
    for (const i of err.issues) expect(err.message).toContain(`${i.field}: ${i.rule}`);
  });

  it('getTask needs a non-empty task_id', async () => {
    const err = (await caught(client.getTask(''))) as RequestValidationError;
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.issues).toEqual([{ field: 'task_id', rule: 'is required (a non-empty string)' }]);
  });
});

describe('ReviewClient submit validation: valid bodies are sent', () => {
  let server: TestServer;
  let client: ReviewClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = new ReviewClient(reviewConfig(server.url));
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });
  const sent = () => JSON.parse(server.received.at(-1)!.body) as Record<string, unknown>;

  it('reads extensions case-insensitively and ignores the query string; unknown fields pass through', async () => {
    const body = {
      images: [
        'https://cdn.example.com/A.JPG?sig=1.mp4',
        'https://8.8.8.8/b.HeIc#frag',
        'https://[2606:4700::1111]/c.webp',
      ],
      group_id: 'people-1',
      group_source: 'real_person',
      callback_url: 'https://hooks.example.com/review',
      priority: 'high',
    };
    await client.submitAsync(body as ReviewSubmitBody);
    expect(sent()).toEqual(body);
  });

  it('accepts video and audio batches with the matching asset_type, and group_source "" with group_id', async () => {
    await client.submitSync({ images: [mp4(), 'https://cdn.example.com/b.MOV'], asset_type: 'Video' });
    await client.submitSync({
      images: ['https://cdn.example.com/a.wav'],
      asset_type: 'Audio',
      group_id: 'g',
      group_source: '',
    });
    expect(server.received).toHaveLength(3);
  });

  it('takes the legacy asset_url_list alone and sends the same list in images', async () => {
    await client.submitAsync({ asset_url_list: [jpg('legacy')] } as unknown as ReviewSubmitBody);
    expect(sent()).toEqual({ images: [jpg('legacy')], asset_url_list: [jpg('legacy')] });
  });

  it('when both lists are sent, asset_url_list wins: images is not checked and is aligned with it', async () => {
    await client.submitAsync({ images: ['ftp://old.example.com/x'], asset_url_list: [jpg('winner')] });
    expect(sent()).toEqual({ images: [jpg('winner')], asset_url_list: [jpg('winner')] });
  });

  it('accepts group_source without group_id, whatever its value (the spec restricts it only when group_id is sent)', async () => {
    for (const group_source of ['real_person', 'celebrity', '']) {
      await client.submitAsync({ images: [jpg()], group_source });
      expect(sent()).toEqual({ images: [jpg()], group_source });
    }
  });

  it('accepts exactly 50 URLs', async () => {
    await client.submitAsync({ images: Array.from({ length: 50 }, (_, i) => jpg(`n${i}`)) });
    expect((sent().images as string[]).length).toBe(50);
  });
});

describe('ReviewClient with allowPrivateUrls (ALLOW_PRIVATE_URLS=true: sandbox, demo, tests)', () => {
  let server: TestServer;
  let client: ReviewClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = new ReviewClient(reviewConfig(server.url, { allowPrivateUrls: true }));
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it.each(PRIVATE_HOSTS)('sends images and callback_url at %s', async (_kind, host) => {
    const body = { images: [`http://${host}/a.jpg`], callback_url: `http://${host}:8787/callbacks/review` };
    const before = server.received.length;
    await client.submitAsync(body);
    await client.submitSync({ asset_url_list: [`http://${host}/b.png`] } as unknown as ReviewSubmitBody);
    expect(server.received).toHaveLength(before + 2);
    expect(JSON.parse(server.received.at(-2)!.body)).toEqual(body);
  });

  it('still refuses what is not an http(s) URL', async () => {
    const err = (await caught(client.submitAsync({ images: ['ftp://127.0.0.1/a.jpg'] }))) as RequestValidationError;
    expect(err.issues).toEqual([{ field: 'images[0]', rule: 'must be a public http or https URL' }]);
  });
});
