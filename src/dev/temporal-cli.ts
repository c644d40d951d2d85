// Which Temporal CLI binary the dev server runs: TEMPORAL_CLI, else the one `scripts/temporal-cli.mjs`
// found or installed (it records it in .temporal-cli/located.json; `npm test`, `npm run demo` and
// `npm run bench` run it first), else none and the SDK downloads one.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const located = fileURLToPath(new URL('../../.temporal-cli/located.json', import.meta.url));

export function temporalCli(): { path: string | undefined; version: string | undefined } {
  if (process.env.TEMPORAL_CLI) return { path: process.env.TEMPORAL_CLI, version: undefined };
  if (!existsSync(located)) return { path: undefined, version: undefined };
  const found = JSON.parse(readFileSync(located, 'utf8')) as { path?: string; version?: string };
  return found.path && existsSync(found.path)
    ? { path: found.path, version: found.version }
    : { path: undefined, version: undefined };
}
