// `npm run schemas`: writes the contract's JSON Schemas (src/job/json-schemas.ts, generated from the zod
// schemas) to schemas/, where they are committed and shipped; test/unit/json-schemas.test.ts fails when
// the committed files differ from what the code generates.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractJsonSchemas, schemaFileText } from '../src/job/json-schemas.js';

const out = fileURLToPath(new URL('../schemas/', import.meta.url));
const schemas = contractJsonSchemas();
// Files of types that no longer exist go too: the folder holds exactly what the code generates.
rmSync(out, { recursive: true, force: true });
for (const [name, schema] of Object.entries(schemas)) {
  const file = join(out, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, schemaFileText(schema));
}
console.log(`wrote ${Object.keys(schemas).length} schemas to ${out}: ${readdirSync(out).join(', ')}`);
