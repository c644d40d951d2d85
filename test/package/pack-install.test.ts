// The package as a user gets it: `npm pack` of the library and of the sandbox package (a workspace, the
// library's optional peer dependency), both tarballs installed into a fresh project that has only the
// packages' declared dependencies, a worker there registering our workflows and activities through
// the plugin next to one of its own, our callback handler mounted in that project's own node:http server,
// one job on the sandbox and the run's dev server, the installed `review-video` bin (an npm symlink), and
// a type-check of the project with tsc --noEmit.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { contractJsonSchemas } from '../../src/job/json-schemas.js';
import { isExternal, linksOf } from '../support/markdown-links.js';
import { testClient } from '../support/temporal.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
// Sources of the user's project live as .ts.txt so that the repo's own tsc does not check them against an
// unbuilt dist/; they are copied as .ts and type-checked inside the project instead.
const projectFiles = fileURLToPath(new URL('./project/', import.meta.url));

/** What the package ships besides its code: the README, the pages it links to (the sandbox's and the
 * modules' READMEs among them), and their images. */
const DOCUMENTATION =
  /^(README|CHANGELOG|BENCHMARKS|RELIABILITY)\.md$|^docs\/|^src\/[\w-]+\/README\.md$|^packages\/sandbox\/README\.md$/;

/** The contract for callers in other languages: its JSON Schemas and the Python caller the docs show. */
const FOR_OTHER_LANGUAGES =
  /^schemas\/[\w/-]+\.schema\.json$|^examples\/python\/[\w-]+\.(py|txt)$|^examples\/go\/(\w+\.go|go\.mod|go\.sum)$/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without what an enclosing `npm test` put there about this repo's own package. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      /^npm_(package|lifecycle)_/i.test(k) ||
      /^npm_config_(local_prefix|prefix|global)$/i.test(k) ||
      k === 'INIT_CWD'
    )
      continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

function run(
  command: string,
  args: string[],
  cwd: string,
  extraEnv: Record<string, string> = {},
  timeoutMs = 300_000,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function expectOk(r: Run, what: string): void {
  if (r.code !== 0)
    throw new Error(
      `${what} exited ${r.code}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`,
    );
}

let dir: string;
let project: string;
let packedFiles: string[];
let tarball: string;
let sandboxTarball: string;
let sandboxFiles: string[];

/** `npm pack` of the package in `cwd` (its `prepack` builds dist/): the tarball and the files it holds. */
async function pack(cwd: string): Promise<{ tarball: string; files: string[] }> {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], cwd);
  expectOk(packed, `npm pack in ${cwd}`);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  return { tarball: join(dir, info!.filename), files: info!.files.map((f) => f.path).sort() };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rtg-pack-'));
  project = join(dir, 'my-app');

  // The library's `prepack` builds the sandbox package first (its declarations are what the library's
  // `./sandbox` export re-exports), then dist/ from src/.
  ({ tarball, files: packedFiles } = await pack(repo));
  ({ tarball: sandboxTarball, files: sandboxFiles } = await pack(join(repo, 'packages', 'sandbox')));

  copyProject();
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify(
      {
        name: 'my-app',
        version: '1.0.0',
        private: true,
        type: 'module',
        // Same pin as the repo: the registry lacks @swc/core 1.16.22's platform builds.
        overrides: { '@swc/core': '1.16.18' },
      },
      null,
      2,
    )}\n`,
  );
  const install = await run(
    'npm',
    [
      'install',
      tarball,
      sandboxTarball,
      'typescript@5.9',
      '@types/node@20',
      'tsx',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    project,
    {},
    540_000,
  );
  expectOk(install, 'npm install of the packed tarballs');
}, 600_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The user's project: its sources and tsconfig, from test/package/project/. */
function copyProject(): void {
  mkdirSync(project, { recursive: true });
  for (const name of readdirSync(projectFiles)) {
    const target = name.endsWith('.ts.txt') ? name.slice(0, -'.txt'.length) : name;
    copyFileSync(join(projectFiles, name), join(project, target));
  }
}

describe('the packed package in a fresh project', () => {
  it('contains only dist/ (with declaration files), package.json, the documentation and the JSON Schemas', () => {
    const unexpected = packedFiles.filter(
      (p) =>
        !(
          p === 'package.json' ||
          p === 'LICENSE' ||
          DOCUMENTATION.test(p) ||
          FOR_OTHER_LANGUAGES.test(p) ||
          p.startsWith('dist/')
        ),
    );
    expect(unexpected).toEqual([]);
    for (const doc of ['README.md', 'CHANGELOG.md', 'BENCHMARKS.md', 'RELIABILITY.md', 'docs/operations.md'])
      expect(packedFiles).toContain(doc);
    for (const entry of [
      'index',
      'activities/index',
      'plugin',
      'workflows/index',
      'workflows-path',
      'callbacks/index',
      'sandbox',
    ]) {
      expect(packedFiles).toContain(`dist/${entry}.js`);
      expect(packedFiles).toContain(`dist/${entry}.d.ts`);
    }
    // Development-only code (dev server starter, demo) and source maps stay out.
    expect(
      packedFiles.filter((p) => p.startsWith('dist/dev/') || p.startsWith('dist/demo.') || p.endsWith('.map')),
    ).toEqual([]);
  });

  it('the sandbox package: dist/ (the public-host rule compiled in), its README, and only its declared imports', () => {
    expect(sandboxFiles.filter((p) => !(p === 'package.json' || p === 'README.md' || p.startsWith('dist/')))).toEqual(
      [],
    );
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/main.js', 'dist/public-host.js'])
      expect(sandboxFiles).toContain(f);
    const installed = join(project, 'node_modules', 'temporal-review-video-sandbox');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const declared = new Set(Object.keys(manifest.dependencies));
    const undeclared = new Set<string>();
    for (const file of sandboxFiles.filter((p) => p.endsWith('.js') || p.endsWith('.d.ts')))
      for (const m of readFileSync(join(installed, file), 'utf8').matchAll(
        /^\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]/gm,
      )) {
        const spec = m[1]!;
        if (spec.startsWith('./') || spec.startsWith('node:')) continue;
        undeclared.add(`${spec} (${file})`);
        if (declared.has(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!))
          undeclared.delete(`${spec} (${file})`);
      }
    expect([...undeclared]).toEqual([]);
  });

  it('ships every JSON Schema the code generates, reachable as temporal-review-video/schemas/*', async () => {
    const names = Object.keys(contractJsonSchemas());
    expect(names.length).toBeGreaterThan(3);
    for (const name of names) expect(packedFiles).toContain(`schemas/${name}`);
    expect(packedFiles).toContain('examples/python/caller.py');
    // docs/starting-jobs.md links the Go caller too: its module ships whole (not its test).
    for (const f of ['main.go', 'codec.go', 'go.mod', 'go.sum']) expect(packedFiles).toContain(`examples/go/${f}`);
    // Resolved through the package's `exports` map, as a user's tooling would.
    const r = await run(
      'node',
      [
        '--input-type=module',
        '-e',
        "import { readFileSync } from 'node:fs'; import { fileURLToPath } from 'node:url';" +
          "const f = fileURLToPath(import.meta.resolve('temporal-review-video/schemas/job-input.schema.json'));" +
          'console.log(JSON.stringify(JSON.parse(readFileSync(f, "utf8"))))',
      ],
      project,
    );
    expectOk(r, 'resolving temporal-review-video/schemas/job-input.schema.json');
    expect(JSON.parse(r.stdout.trim())).toEqual(contractJsonSchemas()['job-input.schema.json']);
  });

  it('documentation read from node_modules: every link to another page or image resolves inside the package', () => {
    const installed = join(project, 'node_modules', 'temporal-review-video');
    const broken: string[] = [];
    let checked = 0;
    for (const file of packedFiles.filter((p) => p.endsWith('.md'))) {
      for (const link of linksOf(file, readFileSync(join(installed, file), 'utf8'))) {
        const target = decodeURIComponent(link.target.split('#')[0]!);
        // Links to source files (src/, test/, bench/, ...) are links into the repository, not the package.
        if (isExternal(link.target) || !/\.(md|png|svg)$/i.test(target)) continue;
        checked++;
        const resolved = posix.normalize(posix.join(posix.dirname(file), target));
        if (!packedFiles.includes(resolved)) broken.push(`${file}:${link.line}: ${link.target} (${resolved})`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(broken, `not in the package:\n${broken.join('\n')}`).toEqual([]);
  });

  it('imports, in code and declarations, nothing but node: builtins and its declared dependencies', () => {
    const installed = join(project, 'node_modules', 'temporal-review-video');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    // The sandbox is an optional peer: only the `./sandbox` export imports it.
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
    const undeclared = new Set<string>();
    for (const file of packedFiles.filter((p) => p.endsWith('.js') || p.endsWith('.d.ts'))) {
      const text = readFileSync(join(installed, file), 'utf8');
      // Static import/export statements (possibly over several lines) and import("x") types or calls.
      const statements = text.matchAll(/^\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]/gm);
      const calls = text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g);
      for (const m of [...statements, ...calls]) {
        const spec = m[1]!;
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!declared.has(name)) undeclared.add(`${name} (${file})`);
      }
    }
    expect([...undeclared]).toEqual([]);
  });

  it('runs ReviewThenGenerate from a user worker next to its own activity, callbacks through the mounted handler', async () => {
    const r = await run(
      join(project, 'node_modules', '.bin', 'tsx'),
      ['run.ts'],
      project,
      {
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      },
      170_000,
    );
    expectOk(r, 'the project run script');
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);

    // The job succeeded with the approved Asset:// address.
    expect(out.result.state).toBe('succeeded');
    expect(out.result.videoUrl).toMatch(/^https?:\/\/.+\.mp4$/);
    expect(out.result.assets[0].assetUrl).toMatch(/^Asset:\/\//);
    // Callbacks, not polling, woke the run: exactly the four calls of a job with callbacks.
    expect(out.directOps).toEqual({ 'review.submitAsync': 1, 'review.query': 1, 'video.create': 1, 'video.get': 1 });
    expect(out.progress.callbacks.review).toBeGreaterThanOrEqual(1);
    expect(out.progress.callbacks.video).toBeGreaterThanOrEqual(1);

    // The services called the user's own server, under its /hooks prefix, and our handler signalled the run.
    for (const kind of ['review', 'video']) {
      const delivered = out.deliveries.filter((d: { kind: string }) => d.kind === kind);
      expect(delivered.length).toBeGreaterThanOrEqual(1);
      for (const d of delivered) {
        expect(d.url.startsWith(`${out.appUrl}/hooks/callbacks/${kind}/`)).toBe(true);
        expect(d).toMatchObject({ outcome: 'delivered', httpStatus: 202 });
      }
      expect(out.handlerOutcomes).toContainEqual({
        kind,
        workflowId: out.workflowId,
        status: 202,
        outcome: 'accepted',
        durationMs: expect.any(Number),
      });
    }
    // The user's own routes still answer.
    expect(out.health).toBe('ok');

    // The user's workflow ran ours as a child, then the user's own activity on the same worker.
    expect(out.published).toMatch(/^published https?:\/\/.+\.mp4$/);
    expect(out.activityNames.own).toEqual(['myOwnActivity']);
    expect(out.activityNames.ours.length).toBeGreaterThanOrEqual(6);
    for (const name of out.activityNames.ours) expect(name).toMatch(/^rtg[A-Z]/);
    // activitiesFromEnv builds the same set from the variables it is given; the plugin read from an
    // incomplete environment stops Worker.create, naming a missing variable.
    expect(out.envActivities).toEqual({ names: out.activityNames.ours, callbacksOn: true });
    expect(out.envError).toMatch(/^ConfigError: .*VIDEO_API_BASE_URL/);

    // workflowsPath: the root constant, the subpath and import.meta.resolve agree on the installed file.
    expect(out.workflowsPath.exists).toBe(true);
    expect(out.workflowsPath.root).toBe(out.workflowsPath.subpath);
    expect(out.workflowsPath.resolved).toBe(out.workflowsPath.root);
    expect(out.workflowsPath.root).toContain(
      join('node_modules', 'temporal-review-video', 'dist', 'workflows', 'index.js'),
    );
    expect(out.failureTypes).toContain('ReviewRejected');
  }, 180_000);

  it('installs a working review-video command: --help prints the usage; submit starts a run, status shows it, status of an unknown id exits 4', async () => {
    // npm links node_modules/.bin/review-video to the package's dist/cli.js; run the link as a shell would.
    const bin = join(project, 'node_modules', '.bin', 'review-video');
    const help = await run(bin, ['--help'], project, {}, 60_000);
    expectOk(help, 'review-video --help');
    expect(help.stdout).toContain('Usage: review-video <command> [options]');
    expect(help.stdout).toContain('Exit codes:');

    // A queue no worker polls: the job stays running; terminated after. `status` prints it without its
    // progress (no worker answers the query; the command gives up on it after a few seconds).
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      TEMPORAL_TASK_QUEUE: `pack-cli-${randomUUID()}`,
      TEMPORAL_PROFILE: '',
    };
    const key = `pack-cli-${randomUUID()}`;
    const job = {
      task: {
        model: 'video-model-1',
        content: [
          { type: 'text', text: 'a cat' },
          { type: 'image_url', image_url: { url: 'https://cdn.example.com/pack/cat.jpg' } },
        ],
      },
      review: {},
    };
    try {
      const submitted = await run(
        bin,
        ['submit', '--key', key, '--input', JSON.stringify(job), '--json'],
        project,
        env,
        60_000,
      );
      expectOk(submitted, 'review-video submit');
      expect(JSON.parse(submitted.stdout)).toMatchObject({ workflowId: key, existing: false });
      const described = await (await testClient()).workflow.getHandle(key).describe();
      expect({ type: described.type, taskQueue: described.taskQueue, status: described.status.name }).toEqual({
        type: 'ReviewThenGenerate',
        taskQueue: env.TEMPORAL_TASK_QUEUE,
        status: 'RUNNING',
      });
      const shown = await run(bin, ['status', key], project, env, 60_000);
      expectOk(shown, 'review-video status');
      expect(shown.stdout).toContain(`${key}  ReviewThenGenerate  RUNNING`);
      const missing = await run(bin, ['status', `no-such-job-${randomUUID()}`], project, env, 60_000);
      expect(missing.code, missing.stderr).toBe(4);
    } finally {
      await (
        await testClient()
      ).workflow
        .getHandle(key)
        .terminate('pack-install test done')
        .catch(() => undefined);
    }
  }, 180_000);

  it('type-checks the user project with tsc --noEmit (strict, NodeNext)', async () => {
    const r = await run(
      join(project, 'node_modules', '.bin', 'tsc'),
      ['--noEmit', '-p', 'tsconfig.json'],
      project,
      {},
      170_000,
    );
    expectOk(r, 'tsc --noEmit in the user project');
  }, 180_000);
});
