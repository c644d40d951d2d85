// The CLI started through a symlink, as npm installs a bin (node_modules/.bin/review-video is a link to the
// package's dist/cli.js): it must run, not print nothing and exit 0. Fast: no packing, no server.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMainModule } from '../../src/is-main.js';
import { cliPath, repoRoot, type CliRun } from '../support/run-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rtg-bin-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runNode(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('review-video through a symlink (how npm installs a bin)', () => {
  it('prints the usage for --help and exits 0', async () => {
    const link = join(dir, 'review-video');
    symlinkSync(cliPath, link);
    const r = await runNode(['--import', 'tsx', link, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: review-video <command> [options]');
  });

  it('runs a command: an unknown one is a usage error (exit 2), not silence', async () => {
    const bin = join(dir, 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(cliPath, join(bin, 'review-video'));
    const r = await runNode(['--import', 'tsx', join(bin, 'review-video'), 'frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command frobnicate');
  });
});

describe('isMainModule', () => {
  it('matches the file itself and any link to it, nothing else', () => {
    const file = join(dir, 'entry.js');
    writeFileSync(file, '');
    const link = join(dir, 'entry-link');
    symlinkSync(file, link);
    const url = pathToFileURL(file).href;
    expect(isMainModule(url, file)).toBe(true);
    expect(isMainModule(url, link)).toBe(true);
    expect(isMainModule(url, join(dir, 'other.js'))).toBe(false);
    expect(isMainModule(url, undefined)).toBe(false);
    expect(isMainModule('data:text/javascript,', file)).toBe(false);
  });
});
