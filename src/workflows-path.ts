// Absolute path of the workflows module, for `Worker.create({ workflowsPath })`: the .ts source when run
// from source (tsx, vitest), the compiled .js when run from dist/ or the installed package.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ext = extname(fileURLToPath(import.meta.url));
export const workflowsPath = fileURLToPath(new URL(`./workflows/index${ext}`, import.meta.url));
