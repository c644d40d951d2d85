// Whether a module is the process's entry point. npm installs a package's bin as a symlink
// (node_modules/.bin/x -> ../pkg/dist/x.js): process.argv[1] is the link while import.meta.url is the
// file it points to, so the two are compared as real paths.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** `isMainModule(import.meta.url)`: true when this module was started as `node <file>` (or through a link to it). */
export function isMainModule(moduleUrl: string, argv1: string | undefined = process.argv[1]): boolean {
  if (!argv1 || !moduleUrl.startsWith('file:')) return false;
  return realPath(argv1) === realPath(fileURLToPath(moduleUrl));
}
