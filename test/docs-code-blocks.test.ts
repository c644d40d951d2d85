// Docs that cannot drift: the code blocks of the README, docs/ and the other Markdown pages are checked
// against the code, in this process (no child process, no server):
//
// - TypeScript blocks are type-checked against the package's source (`temporal-review-video` and its
//   subpaths mapped to src/), with the project's compiler options. A fragment says what makes it whole in
//   an HTML comment before its fence (`<!-- doc-check: prelude ... -->`), or why it is not checked
//   (`<!-- doc-check: skip ... -->`); see test/support/markdown-code-blocks.ts.
// - Shell blocks: every `npm run X` names a script of package.json (inline code in the prose too); every
//   `review-video ...`, `npx review-video ...` and `npm run cli -- ...` is parsed by the CLI's own parser
//   (its subcommand and flags, run with --help so that nothing connects); every variable a block exports or
//   sets is one the configuration reads; `node dist/X.js` is built from a source that exists.
// - JSON blocks parse, and a job input, a GenerateAndPoll input or a webhook's payload is valid for its
//   schema; YAML blocks parse.
// - Python and Go blocks are verbatim excerpts of examples/ (the files test/python/ and test/go/ run),
//   which test/unit/python-caller-docs.test.ts and go-caller-docs.test.ts hold for docs/starting-jobs.md;
//   here for every page.
// Blocks in other languages (text, a tree, a shape in words) are output or prose, not code, and not checked.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { main as cli } from '../src/cli.js';
import { TEMPORAL_DEFAULTS } from '../src/config/temporal.js';
import { notificationPayloadSchema } from '../src/model/notify.js';
import { validateGenerateAndPollInput } from '../src/job/generate-and-poll-input.js';
import { validateReviewThenGenerateInput } from '../src/job/input.js';
import { CONFIG_SCHEMAS, objectKeys, readmeTableVariables } from './support/config-table.js';
import { codeBlocks, markdownFiles, type CodeBlock } from './support/markdown-code-blocks.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const where = (b: CodeBlock, offset = 0) => `${b.file}:${b.line + 1 + offset}`;

const pages = markdownFiles(root);
const blocks = pages.flatMap((file) => codeBlocks(root, file));
const ofLang = (...langs: string[]) => blocks.filter((b) => langs.includes(b.lang));

const TS = ['ts', 'typescript'];
const SHELL = ['bash', 'sh', 'shell', 'console'];
const CHECKED = [...TS, ...SHELL, 'json', 'yaml', 'yml', 'python', 'go'];

/** What each check counted, printed once at the end (the figures the issue asks for). */
const figures = { tsChecked: 0, tsSkipped: [] as string[], npmScripts: 0, cliCommands: 0, envNames: 0, nodePaths: 0 };
afterAll(() => {
  const other = blocks.filter((b) => !CHECKED.includes(b.lang)).length;
  console.log(
    `docs-code-blocks: ${blocks.length} blocks in ${pages.length} pages; TypeScript ${figures.tsChecked} ` +
      `type-checked, ${figures.tsSkipped.length} skipped (${figures.tsSkipped.join('; ')}); ` +
      `${figures.npmScripts} npm run commands, ${figures.cliCommands} CLI commands, ${figures.envNames} ` +
      `variables, ${figures.nodePaths} node paths; ${other} blocks of output or prose not checked`,
  );
});

// ---------------------------------------------------------------------------------------------- TypeScript

/** The package's exports, as the docs import them, mapped to the source (package.json "exports"). */
const PACKAGE_PATHS = {
  'temporal-review-video': ['src/index.ts'],
  'temporal-review-video/*': ['src/*.ts', 'src/*/index.ts'],
};

/** Type errors of the TypeScript blocks, each as `page:line: message`, all in one program. */
function typeErrors(tsBlocks: CodeBlock[]): string[] {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  Object.assign(options, { noEmit: true, paths: PACKAGE_PATHS, declaration: false, sourceMap: false });
  // Virtual files in the repository's root, so that node_modules and package.json ("type": "module") resolve.
  const virtual = new Map<string, { block: CodeBlock; text: string; preludeLines: number }>();
  for (const block of tsBlocks) {
    const prelude = block.prelude ?? '';
    // A block without import or export would be a script, where top-level await is not allowed.
    const isModule = /^\s*(import|export)\s/m.test(prelude + block.code);
    const text = `${prelude}${block.code}\n${isModule ? '' : 'export {};\n'}`;
    const name = path.join(root, '.doc-blocks', `${block.file.replace(/\W/g, '_')}_L${block.line}.ts`);
    virtual.set(name, { block, text, preludeLines: prelude.split('\n').length - 1 });
  }
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => {
    const v = virtual.get(path.resolve(name));
    return v ? ts.createSourceFile(name, v.text, lang) : getSourceFile(name, lang, ...rest);
  };
  host.fileExists = (name) => virtual.has(path.resolve(name)) || fileExists(name);
  host.readFile = (name) => virtual.get(path.resolve(name))?.text ?? readFile(name);
  const program = ts.createProgram([...virtual.keys()], options, host);
  const errors: string[] = [];
  for (const [name, { block, preludeLines }] of virtual) {
    const source = program.getSourceFile(name)!;
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      const at = line < preludeLines ? `${block.file}:${block.line} (its prelude)` : where(block, line - preludeLines);
      errors.push(`${at}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
  }
  return errors;
}

describe("the TypeScript blocks type-check against the package's source", () => {
  const tsBlocks = ofLang(...TS);
  const checked = tsBlocks.filter((b) => b.skip === undefined);
  /** A block that calls the package wrongly (`duration` is a number): it must fail, at its own line. */
  const probe: CodeBlock = {
    file: 'probe.md',
    line: 1,
    lang: 'ts',
    prelude: "import type { Client } from '@temporalio/client';\ndeclare const client: Client;\n",
    code: [
      "import { startReviewThenGenerate } from 'temporal-review-video';",
      "await startReviewThenGenerate(client, { businessKey: 'k', input: { task: { model: 'm', duration: '5' } } });",
    ].join('\n'),
  };
  // One program for all of them: type-checking the package's source is most of the time.
  let errors: string[] = [];
  beforeAll(() => {
    errors = typeErrors([...checked, probe]);
  });

  it('every block not marked skip, with its prelude', () => {
    const skipped = tsBlocks.filter((b) => b.skip !== undefined);
    for (const b of skipped) expect(b.skip, `${where(b, -1)}: a skip says why`).not.toBe('');
    figures.tsSkipped = skipped.map((b) => `${b.file}:${b.line}: ${b.skip}`);
    figures.tsChecked = checked.length;
    expect(checked.length).toBeGreaterThanOrEqual(10);
    expect(errors.filter((e) => !e.startsWith('probe.md:'))).toEqual([]);
  });

  it('catches a block that calls the package wrongly', () => {
    expect(errors.filter((e) => e.startsWith('probe.md:')).join('\n')).toMatch(/^probe\.md:3: .*string.*number/m);
  });
});

// ---------------------------------------------------------------------------------------------- shell

/** The words of one shell command line: quotes removed, `$(...)` kept as one word; comments dropped. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word = (word ?? '') + line.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? line.length : end;
    } else if (c === '$' && line[i + 1] === '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < line.length; j++)
        if (line[j] === '(') depth++;
        else if (line[j] === ')' && --depth === 0) break;
      word = (word ?? '') + line.slice(i, j + 1);
      i = j;
    } else if (c === '#' && word === undefined) break;
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The simple commands of a shell block: continuation lines joined, split at `&&`, `||`, `;`, `|`, `&`. */
function shellCommands(code: string): string[][] {
  const out: string[][] = [];
  for (const line of code.replace(/\\\n/g, ' ').split('\n')) {
    let current: string[] = [];
    for (const w of shellWords(line)) {
      if (['&&', '||', ';', '|', '&', 'do', 'then'].includes(w) || w.endsWith(';')) {
        const last = w.endsWith(';') && w !== ';' ? w.slice(0, -1) : undefined;
        if (last) current.push(last);
        if (current.length) out.push(current);
        current = [];
      } else current.push(w);
    }
    if (current.length) out.push(current);
  }
  return out;
}

const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);

/** The variables the configuration reads: the README's table, the config schemas and the sandbox's page. */
function configurationVariables(): Set<string> {
  const sandbox = [...read('packages/sandbox/README.md').matchAll(/`(SANDBOX_[A-Z0-9_]+)`/g)].map((m) => m[1]!);
  return new Set([...CONFIG_SCHEMAS.flatMap(objectKeys), ...readmeTableVariables(read('README.md')), ...sandbox]);
}

/** Variables a page may name that are not ours, each with the reason. */
const NOT_OURS = new Map<string, string>([
  ['TEMPORAL_API_KEY', "@temporalio/envconfig's, which the README's table names"],
  ['TEMPORAL_PROFILE', "@temporalio/envconfig's"],
  ['TEMPORAL_CONFIG_FILE', "@temporalio/envconfig's"],
  ['NODE_OPTIONS', "Node.js's"],
  ['FC_SEED', "the property tests' seed (docs/development.md)"],
]);
const isOtherTool = (name: string) => /^(TEMPORAL_TLS_|AWS_)/.test(name); // envconfig's and the AWS SDK's

/** A command's variables: `export A=1 B=2`, `A=1 cmd`, and kubectl's `--from-literal=A=...`. */
function variablesOf(words: string[]): string[] {
  const names: string[] = [];
  const assignments = words[0] === 'export' ? words.slice(1) : words;
  const leading = assignments.findIndex((w) => !/^[A-Z][A-Z0-9_]*=/.test(w));
  // `A=1` alone sets a shell variable, not the environment: only `export A=1` and `A=1 command` do.
  if (words[0] === 'export' || leading > 0)
    for (const w of assignments.slice(0, leading < 0 ? undefined : leading))
      names.push(/^([A-Z][A-Z0-9_]*)=/.exec(w)![1]!);
  for (const w of words) {
    const literal = /^--from-literal=([A-Z][A-Z0-9_]*)=/.exec(w);
    if (literal) names.push(literal[1]!);
  }
  return names;
}

/** The words after the variable assignments: the command itself. */
const commandOf = (words: string[]) => words.slice(words.findIndex((w) => !/^[A-Z][A-Z0-9_]*=/.test(w)));

/** Runs the CLI in this process with --help added: exit 0 when its parser takes the subcommand and flags. */
async function cliAccepts(args: string[]): Promise<{ ok: boolean; said: string }> {
  let said = '';
  const capture = (chunk: string | Uint8Array) => {
    said += String(chunk);
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const code = await cli([...args, '--help']);
    return { ok: code === 0, said: said.split('\n').slice(0, 2).join(' ') };
  } finally {
    vi.restoreAllMocks();
  }
}

/** What is wrong with one shell block's commands, each as `page:line: ...`. */
async function shellProblems(block: CodeBlock, configuration: Set<string>, tally?: typeof figures): Promise<string[]> {
  const problems: string[] = [];
  const at = where(block);
  for (const words of shellCommands(block.code)) {
    for (const name of variablesOf(words)) {
      if (tally) tally.envNames++;
      if (!configuration.has(name) && !NOT_OURS.has(name) && !isOtherTool(name))
        problems.push(`${at}: ${name} is not a variable the configuration reads`);
    }
    const [command, ...args] = commandOf(words);
    let cliArgs: string[] | undefined;
    if (command === 'npm' && args[0] === 'run') {
      if (tally) tally.npmScripts++;
      if (!scripts.includes(args[1]!)) problems.push(`${at}: npm run ${args[1]}: no such script in package.json`);
      if (args[1] === 'cli') cliArgs = args.slice(args.indexOf('--') + 1);
    } else if (command === 'review-video') cliArgs = args;
    else if (command === 'npx' && args[0] === 'review-video') cliArgs = args.slice(1);
    else if (command === 'node') {
      const file = args.find((a) => !a.startsWith('-'));
      if (file) {
        if (tally) tally.nodePaths++;
        const source = file.replace(/^dist\/(.*)\.js$/, 'src/$1.ts');
        if (!ts.sys.fileExists(path.join(root, source))) problems.push(`${at}: node ${file}: no ${source}`);
      }
    }
    if (cliArgs) {
      if (tally) tally.cliCommands++;
      const { ok, said } = await cliAccepts(cliArgs);
      if (!ok) problems.push(`${at}: review-video ${cliArgs.join(' ')}: ${said}`);
    }
  }
  return problems;
}

describe('the shell blocks name real scripts, CLI commands and flags, and variables', () => {
  const configuration = configurationVariables();

  it('every command of every shell block', async () => {
    const shell = ofLang(...SHELL).filter((b) => b.skip === undefined);
    expect(shell.length).toBeGreaterThanOrEqual(10);
    const problems: string[] = [];
    for (const block of shell) problems.push(...(await shellProblems(block, configuration, figures)));
    expect(figures.cliCommands).toBeGreaterThanOrEqual(10);
    expect(problems).toEqual([]);
  });

  it('every variable a block of text exports (what `npm run dev` prints)', () => {
    const exported = blocks
      .filter((b) => !SHELL.includes(b.lang))
      .flatMap((b) => [...b.code.matchAll(/^\s*export ([A-Z][A-Z0-9_]*)=/gm)].map((m) => [b, m[1]!] as const));
    const unknown = exported.filter(([, name]) => !configuration.has(name) && !NOT_OURS.has(name));
    expect(unknown.map(([b, name]) => `${where(b)}: ${name}`)).toEqual([]);
  });

  it('every `npm run X` in the prose names a script', () => {
    const problems: string[] = [];
    for (const page of pages)
      for (const [, name] of read(page).matchAll(/`npm run ([\w:-]+)[^`]*`/g)) {
        figures.npmScripts++;
        if (!scripts.includes(name!)) problems.push(`${page}: npm run ${name}`);
      }
    expect(problems).toEqual([]);
  });

  it('catches an unknown script, subcommand, flag and variable', async () => {
    const probe = (code: string): CodeBlock => ({ file: 'probe.md', line: 1, lang: 'bash', code });
    expect(await shellProblems(probe('npm run no-such-script'), configuration)).toHaveLength(1);
    expect(await shellProblems(probe('review-video frobnicate x'), configuration)).toHaveLength(1);
    expect(await shellProblems(probe('review-video status order-1 --no-such-flag'), configuration)).toHaveLength(1);
    expect(await shellProblems(probe('npm run cli -- submit --key k --wiat'), configuration)).toHaveLength(1);
    expect(await shellProblems(probe('export VIDEO_API_KEY=x NO_SUCH_SETTING=1'), configuration)).toHaveLength(1);
    expect(await shellProblems(probe('review-video schedule list # a comment'), configuration)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------- defaults

/** The queue a page's job goes to: the workers' default, or the reader's own worker's queue (own-worker.md). */
const READERS_OWN_QUEUE = 'my-app';

describe('the blocks start jobs where a worker on its defaults picks them up', () => {
  it("every task queue a block names, and every caller's fallback, is the package's default", () => {
    const said = blocks.flatMap((b) =>
      [
        ...b.code.matchAll(/taskQueue: '([^']*)'/g),
        ...b.code.matchAll(/--task-queue[ =]([\w.-]+)/g),
        ...b.code.matchAll(/TEMPORAL_TASK_QUEUE=([\w.-]+)/g),
        ...b.code.matchAll(/"TEMPORAL_TASK_QUEUE", "([^"]*)"/g),
      ].map((m) => ({ at: where(b), queue: m[1]! })),
    );
    expect(said.length).toBeGreaterThanOrEqual(6);
    const wrong = said.filter((s) => s.queue !== TEMPORAL_DEFAULTS.taskQueue && s.queue !== READERS_OWN_QUEUE);
    expect(wrong).toEqual([]);
    const fallbacks = blocks.flatMap((b) =>
      [...b.code.matchAll(/"(TEMPORAL_ADDRESS|TEMPORAL_NAMESPACE)", "([^"]*)"/g)].map((m) => ({
        at: where(b),
        variable: m[1]!,
        value: m[2]!,
      })),
    );
    const defaults: Record<string, string> = {
      TEMPORAL_ADDRESS: TEMPORAL_DEFAULTS.address,
      TEMPORAL_NAMESPACE: TEMPORAL_DEFAULTS.namespace,
    };
    expect(fallbacks.filter((f) => f.value !== defaults[f.variable])).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------- data

/** The schema a JSON block's value is meant for, recognised by its shape; undefined: it only has to parse. */
function problemsOf(value: unknown): string[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if ('task' in value && 'review' in value) {
    const v = validateReviewThenGenerateInput(value);
    return v.ok ? [] : v.problems.map((p) => `${p.field}: ${p.rule}`);
  }
  if ('entryPoint' in value) {
    const v = validateGenerateAndPollInput(value);
    return v.ok ? [] : v.problems.map((p) => `${p.field}: ${p.rule}`);
  }
  if ('type' in value && 'data' in value) {
    const r = notificationPayloadSchema().safeParse(value);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  }
  return undefined;
}

describe('the data blocks', () => {
  it('every JSON block parses, and a job input, GenerateAndPoll input or webhook payload is valid', () => {
    const problems: string[] = [];
    let validated = 0;
    for (const block of ofLang('json').filter((b) => b.skip === undefined)) {
      try {
        const found = problemsOf(JSON.parse(block.code));
        if (found) validated++;
        problems.push(...(found ?? []).map((p) => `${where(block)}: ${p}`));
      } catch (err) {
        problems.push(`${where(block)}: ${(err as Error).message}`);
      }
    }
    expect(validated).toBeGreaterThanOrEqual(3);
    expect(problems).toEqual([]);
  });

  it('every YAML block parses', () => {
    for (const block of ofLang('yaml', 'yml')) expect(() => parseYaml(block.code), where(block)).not.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------- Python, Go

describe('the Python and Go blocks are excerpts of the callers the tests run', () => {
  const SOURCES: Record<string, string[]> = {
    python: ['examples/python/caller.py'],
    go: ['examples/go/main.go', 'examples/go/codec.go'],
  };
  for (const [lang, files] of Object.entries(SOURCES))
    it(`${lang}: each block is a verbatim part of ${files.join(' or ')}`, () => {
      const texts = files.map(read);
      const stray = ofLang(lang).filter((b) => !texts.some((t) => t.includes(b.code)));
      expect(stray.map((b) => where(b))).toEqual([]);
    });
});
