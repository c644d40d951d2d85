// The other entry points of the video service ({base_url}, spec "Other entry points"), emulated: same
// bearer auth as the native task API (review headers refused), JSON bodies (multipart too for images
// edits and /v1/videos), path parameters percent-decoded from one segment, synchronous answers and asynchronous task
// lifecycles. Requests are logged and fault-matched as operation 'other': target a query with
// `match.taskId`, a POST with `match.model` or `match.url` (a substring of the raw body).
// Vendor B's query path is not in the spec: the sandbox serves GET /video-b/ent/v2/tasks/{task_id}/creations.
import { credentialOf, videoAuthProblem } from './auth.js';
import { randomHex, type ServiceContext } from './context.js';
import { Readable } from 'node:stream';
import { checkSyncBody, PIXEL_PNG, syncReply, type GatewaySyncKind } from './gateway-replies.js';
import { invalid, readGatewayBody } from './gateway-body.js';
import { isStreamKind, streamReply } from './gateway-streams.js';
import { GatewayTasks, gatewayModel, type ScriptedGatewayOutcome } from './gateway-tasks.js';
import type { GatewayTaskKind } from './gateway-vocabulary.js';
import { errorReply, type Reply, type RouteInfo, type ServiceRequest } from './server.js';
import type { VideoTaskSummary } from './types.js';

type Action =
  /** `stream`: always an event stream (Gemini's streamGenerateContent); otherwise when the body says `stream: true`. */
  | { sync: GatewaySyncKind; stream?: true }
  | { create: GatewayTaskKind }
  | { query: GatewayTaskKind }
  /** The result of a finished task, served to the bearer key (OpenAI's GET /v1/videos/{id}/content). */
  | { content: GatewayTaskKind };

interface GatewayRoute {
  method: 'GET' | 'POST';
  /** Matched against the raw (still encoded) path: a parameter is one segment, `%2F` and `%3A` included. */
  pattern: RegExp;
  action: Action;
  multipart?: boolean;
}

const ROUTES: GatewayRoute[] = [
  { method: 'POST', pattern: /^\/v1\/video\/generations$/, action: { create: 'unifiedVideo' } },
  { method: 'GET', pattern: /^\/v1\/video\/generations\/(?<id>[^/]+)$/, action: { query: 'unifiedVideo' } },
  { method: 'POST', pattern: /^\/video-a\/v1\/videos\/text2video$/, action: { create: 'vendorA' } },
  // One create, three query paths in the spec: a vendor A task is answered on each of them.
  {
    method: 'GET',
    pattern: /^\/video-a\/v1\/videos\/(?:text2video|image2video|omni-video)\/(?<id>[^/]+)$/,
    action: { query: 'vendorA' },
  },
  { method: 'POST', pattern: /^\/video-b\/ent\/v2\/text2video$/, action: { create: 'vendorB' } },
  { method: 'GET', pattern: /^\/video-b\/ent\/v2\/tasks\/(?<id>[^/]+)\/creations$/, action: { query: 'vendorB' } },
  // openai's videos.create sends multipart (an `input_reference` file), JSON is accepted too.
  { method: 'POST', pattern: /^\/v1\/videos$/, action: { create: 'videos' }, multipart: true },
  { method: 'GET', pattern: /^\/v1\/videos\/(?<id>[^/]+)$/, action: { query: 'videos' } },
  { method: 'GET', pattern: /^\/v1\/videos\/(?<id>[^/]+)\/content$/, action: { content: 'videos' } },
  { method: 'POST', pattern: /^\/v1\/chat\/completions$/, action: { sync: 'chatCompletions' } },
  { method: 'POST', pattern: /^\/v1\/responses$/, action: { sync: 'responses' } },
  { method: 'POST', pattern: /^\/v1\/messages$/, action: { sync: 'messages' } },
  { method: 'POST', pattern: /^\/v1\/images\/generations$/, action: { sync: 'imagesGenerations' } },
  { method: 'POST', pattern: /^\/v1\/images\/edits$/, action: { sync: 'imagesEdits' }, multipart: true },
  { method: 'POST', pattern: /^\/v1\/aigc-images\/generations$/, action: { create: 'aigcImages' } },
  { method: 'GET', pattern: /^\/v1\/aigc-images\/generations\/(?<id>[^/]+)$/, action: { query: 'aigcImages' } },
  {
    method: 'POST',
    pattern: /^\/v1beta\/models\/(?<model>gemini-3-pro-image-preview|gemini-2\.5-flash-image):generateContent$/,
    action: { sync: 'imageGenerateContent' },
  },
  {
    method: 'POST',
    pattern: /^\/v1beta\/models\/(?<model>[^/]+):generateContent$/,
    action: { sync: 'generateContent' },
  },
  // The streaming form of generateContent (not in the spec's list), as @google/genai calls it (`?alt=sse`).
  {
    method: 'POST',
    pattern: /^\/v1beta\/models\/(?<model>[^/]+):streamGenerateContent$/,
    action: { sync: 'generateContent', stream: true },
  },
];

/** The entry points whose family streams its answer on `stream: true` (Gemini has its own path instead). */
const STREAMS_ON_REQUEST = new Set<GatewaySyncKind>(['chatCompletions', 'responses', 'messages']);

const FILE = /^\/gateway-files\/([^/]+)\.(mp4|png)$/;

function decode(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export class GatewaySandbox {
  private readonly tasks: GatewayTasks;
  /** The ids of the image URLs handed out by the synchronous image entry points. */
  private readonly images = new Set<string>();

  constructor(
    private readonly ctx: ServiceContext,
    scripted: (model: string, prompt: string) => ScriptedGatewayOutcome | undefined,
  ) {
    this.tasks = new GatewayTasks(ctx, scripted);
  }

  /** True for every path this module answers (whatever the method). */
  owns(pathname: string): boolean {
    return FILE.test(pathname) || ROUTES.some((r) => r.pattern.test(pathname));
  }

  route(method: string, pathname: string): RouteInfo | undefined {
    if (FILE.test(pathname)) return { operation: 'other', gateway: 'file' };
    const hit = ROUTES.find((r) => r.method === method && r.pattern.test(pathname));
    if (!hit) return this.owns(pathname) ? { operation: 'other' } : undefined;
    const a = hit.action;
    const gateway = 'sync' in a ? 'sync' : 'create' in a ? 'create' : 'content' in a ? 'file' : 'query';
    const id = decode(hit.pattern.exec(pathname)?.groups?.id);
    return id !== undefined ? { operation: 'other', gateway, taskId: id } : { operation: 'other', gateway };
  }

  async handle(req: ServiceRequest): Promise<Reply> {
    const path = req.url.pathname;
    const file = FILE.exec(path);
    if (file) {
      // Result files are public downloads, like the native task API's videos.
      const id = decode(file[1]) ?? '';
      if (req.method === 'GET' && this.images.has(id)) {
        const png = Buffer.from(PIXEL_PNG, 'base64');
        return {
          status: 200,
          stream: Readable.from([png]),
          contentType: 'image/png',
          headers: { 'content-length': String(png.length) },
        };
      }
      if (req.method !== 'GET' || !this.tasks.fileReady(id)) return errorReply(404, 'not_found', 'no such file');
      return {
        status: 200,
        text: `sandbox ${file[2] === 'png' ? 'image' : 'video'} ${id}`,
        contentType: file[2] === 'png' ? 'image/png' : 'video/mp4',
      };
    }
    const authProblem = videoAuthProblem(req.headers, this.ctx.options.apiKey);
    if (authProblem) return errorReply(401, 'unauthorized', authProblem);

    const route = ROUTES.find((r) => r.method === req.method && r.pattern.test(path));
    if (!route) {
      const allowed = [...new Set(ROUTES.filter((r) => r.pattern.test(path)).map((r) => r.method))].join(', ');
      return {
        ...errorReply(405, 'method_not_allowed', `${req.method} is not allowed on ${path} (allowed: ${allowed})`),
        headers: { allow: allowed },
      };
    }
    const groups = route.pattern.exec(path)?.groups ?? {};
    const action = route.action;

    if ('content' in action) {
      const id = decode(groups.id);
      if (id === undefined)
        return invalid([{ field: 'video_id', rule: 'is not a valid percent-encoded path segment' }]);
      return this.content(action.content, id, req.url.searchParams.get('variant') ?? 'video');
    }
    if ('query' in action) {
      const id = decode(groups.id);
      if (id === undefined) return invalid([{ field: 'task_id', rule: 'is not a valid percent-encoded path segment' }]);
      const json = this.tasks.query(action.query, id);
      return json === undefined
        ? errorReply(404, 'task_not_found', `no ${action.query} task ${id}`)
        : { status: 200, json, taskId: id };
    }

    const body = await readGatewayBody(req, route.multipart === true);
    if ('reply' in body) return body.reply;
    if ('create' in action) {
      if (typeof body.value.prompt !== 'string' || body.value.prompt.trim() === '') {
        return invalid([{ field: 'prompt', rule: 'is required (a non-empty description of the task)' }]);
      }
      // The account's quota, the native create's: per credential and per model.
      const quota = { credential: credentialOf(req.headers), model: gatewayModel(action.create, body.value) };
      const refused = this.ctx.quotas.ask('video', quota.credential, quota.model);
      if (refused) return refused;
      const created = this.tasks.create(action.create, body.value, quota);
      return { status: 200, json: created.json, taskId: created.id };
    }
    const model = decode(groups.model);
    if (groups.model !== undefined && model === undefined)
      return invalid([{ field: 'model', rule: 'is not a valid percent-encoded path segment' }]);
    const issues = checkSyncBody(action.sync, body.value);
    if (issues.length > 0) return invalid(issues);
    // Image URLs resolve: each one handed out is served (a PNG) until the sandbox is reset.
    const imageUrl = () => {
      const id = `img-${randomHex(6)}`;
      this.images.add(id);
      return `${this.ctx.baseUrls.video}/gateway-files/${id}.png`;
    };
    const whole = syncReply(action.sync, body.value, model, imageUrl);
    const kind = action.sync;
    const streamed = action.stream === true || (STREAMS_ON_REQUEST.has(kind) && body.value.stream === true);
    if (streamed && isStreamKind(kind)) return streamReply(kind, whole, body.value);
    return { status: 200, json: whole };
  }

  /** OpenAI's download: `variant` video (default), thumbnail or spritesheet; 404 until the task completed. */
  private content(kind: GatewayTaskKind, id: string, variant: string): Reply {
    const types: Record<string, string> = { video: 'video/mp4', thumbnail: 'image/webp', spritesheet: 'image/jpeg' };
    const contentType = types[variant];
    if (contentType === undefined)
      return invalid([{ field: 'variant', rule: `must be one of ${Object.keys(types).join(', ')}` }]);
    if (this.tasks.query(kind, id) === undefined) return errorReply(404, 'not_found', `no video ${id}`);
    if (!this.tasks.fileReady(id)) return errorReply(404, 'not_found', `video ${id} is not completed`);
    return { status: 200, text: `sandbox ${variant} ${id}`, contentType, taskId: id };
  }

  summaries(): VideoTaskSummary[] {
    return this.tasks.summaries();
  }

  reset(): void {
    this.tasks.reset();
    this.images.clear();
  }
}
