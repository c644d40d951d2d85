// Generators of ReviewThenGenerate inputs: valid ones, valid ones with one to three random mutations
// (a value replaced by any JSON, a key deleted, an unknown key added), and any JSON value at all. The
// mutated ones reach the deeper rules far more often than random JSON does.
import fc from 'fast-check';

const base = 'https://cdn.example.com/media';
const mediaUrl = fc.constantFrom(
  `${base}/alice.jpg`,
  `${base}/bob.png`,
  `${base}/walk.mp4`,
  `${base}/voice.mp3`,
  'Asset://asset-123',
);

const text = fc.record({ type: fc.constant('text'), text: fc.constantFrom('A person walks on the beach', 'Sunset') });
const image = fc.record(
  {
    type: fc.constant('image_url'),
    image_url: fc.record({ url: mediaUrl }),
    role: fc.constantFrom('reference_image', 'first_frame', 'last_frame'),
  },
  { requiredKeys: ['type', 'image_url'] },
);
const video = fc.record(
  { type: fc.constant('video_url'), video_url: fc.record({ url: mediaUrl }), role: fc.constant('reference_video') },
  { requiredKeys: ['type', 'video_url'] },
);
const audio = fc.record(
  { type: fc.constant('audio_url'), audio_url: fc.record({ url: mediaUrl }), role: fc.constant('reference_audio') },
  { requiredKeys: ['type', 'audio_url'] },
);

const task = fc.record(
  {
    model: fc.constantFrom('video-model-1', 'm'),
    content: fc
      .tuple(text, fc.array(fc.oneof(image, video, audio), { maxLength: 3 }))
      .map(([t, media]) => [t, ...media]),
    ratio: fc.constantFrom('16:9', '9:16', '1:1'),
    duration: fc.integer({ min: 1, max: 20 }),
    resolution: fc.constantFrom('720p', '1080p'),
    seed: fc.integer(),
    generate_audio: fc.boolean(),
    watermark: fc.boolean(),
  },
  { requiredKeys: ['model', 'content'] },
);

const review = fc.oneof(
  fc.record(
    { urls: fc.array(mediaUrl, { minLength: 1, maxLength: 3 }), mode: fc.constantFrom('async', 'sync') },
    { requiredKeys: [] },
  ),
  fc.record(
    { groupId: fc.constantFrom('g1', 'group-7'), groupSource: fc.constantFrom('', 'real_person') },
    { requiredKeys: ['groupId'] },
  ),
);

const timing = fc.record(
  {
    reviewMinQueryIntervalMs: fc.integer({ min: 100, max: 10_000 }),
    videoPollIntervalMs: fc.integer({ min: 100, max: 60_000 }),
    reviewTimeoutMs: fc.integer({ min: 1_000, max: 3_600_000 }),
    generationTimeoutMs: fc.integer({ min: 1_000, max: 3_600_000 }),
    createAmbiguityGraceMs: fc.integer({ min: 0, max: 60_000 }),
    callbackFallbackPollMs: fc.integer({ min: 100, max: 60_000 }),
    callTimeoutMs: fc.integer({ min: 1_000, max: 120_000 }),
  },
  { requiredKeys: [] },
);

/** Inputs of the right shape (some still invalid as a whole: e.g. a last frame without a first frame). */
export const validShapeInput = fc.record(
  { task, review, callbacks: fc.boolean(), timing, batchId: fc.string({ minLength: 1, maxLength: 40 }) },
  { requiredKeys: ['task'] },
);

type Path = Array<string | number>;

function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

interface Mutation {
  at: number;
  action: 'set' | 'delete' | 'add';
  key: string;
  value: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  action: fc.constantFrom('set', 'delete', 'add'),
  key: fc.oneof(fc.constantFrom('callback_url', 'urls', 'extra', 'role', '__proto__', 'constructor'), fc.string()),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      '',
      'ftp://x/y.jpg',
      'data:image/png;base64,AAAA',
      'http://localhost/a.jpg',
      'https://cdn.example.com/noext',
      -1,
      0,
      1e12,
    ),
  ),
});

function mutate(input: unknown, mutations: Mutation[]): unknown {
  let root: unknown = structuredClone(input);
  for (const m of mutations) {
    const paths = pathsOf(root);
    const path = paths[m.at % paths.length]!;
    if (path.length === 0) {
      if (m.action === 'set') root = m.value;
      continue;
    }
    const parent = path
      .slice(0, -1)
      .reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], root) as Record<
      string | number,
      unknown
    >;
    const last = path[path.length - 1]!;
    if (m.action === 'set') parent[last] = m.value;
    else if (m.action === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else {
      const target = parent[last];
      if (target && typeof target === 'object' && !Array.isArray(target))
        Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}

/** A valid-shaped input with one to three mutations. */
export const mutatedInput = fc
  .tuple(validShapeInput, fc.array(mutation, { minLength: 1, maxLength: 3 }))
  .map(([input, ms]) => mutate(input, ms));

/** Any JSON value, a valid-shaped input, or a mutated one. */
export const anyInput = fc.oneof(fc.jsonValue(), validShapeInput, mutatedInput);

/** What the input looks like after a trip through the JSON payload converter. */
export function asJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}
