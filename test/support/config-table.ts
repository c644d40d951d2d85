// The configuration contract as the tests read it: the variables of the README's "Configuration" table (or
// of another page's table of variables), and the variables the zod schemas of src/config/*.ts read. Shared
// by the checks of docker-compose.yml (test/compose.test.ts), of the Helm chart (test/helm/), of the docs'
// code blocks (test/docs-code-blocks.test.ts) and of the documented defaults (test/docs-defaults.test.ts).
import { admissionConfigSchema } from '../../src/config/admission.js';
import { callbackConfigSchema } from '../../src/config/callbacks.js';
import { codecServerConfigSchema, encryptionConfigSchema } from '../../src/config/encryption.js';
import { notifyConfigSchema } from '../../src/config/notify.js';
import { servicesConfigSchema } from '../../src/config/services.js';
import { temporalConfigSchema } from '../../src/config/temporal.js';
import { workerDeploymentSchema, workerTuningSchema, workflowBundleSchema } from '../../src/config/worker.js';

/** Every schema of src/config/ that reads environment variables (a new one is added here). */
export const CONFIG_SCHEMAS: readonly unknown[] = [
  temporalConfigSchema,
  servicesConfigSchema,
  workerTuningSchema,
  workerDeploymentSchema,
  workflowBundleSchema,
  callbackConfigSchema,
  notifyConfigSchema,
  admissionConfigSchema,
  encryptionConfigSchema,
  codecServerConfigSchema,
];

/** The keys of a zod object schema, also when wrapped (refinements, pipes, effects). */
export function objectKeys(schema: unknown): string[] {
  let s = schema as { shape?: object; _zod?: { def?: { in?: unknown; schema?: unknown; innerType?: unknown } } };
  for (let i = 0; i < 5 && s && !s.shape; i++) {
    const def = s._zod?.def;
    s = (def?.in ?? def?.schema ?? def?.innerType) as typeof s;
  }
  if (!s?.shape) throw new Error('not a zod object schema');
  return Object.keys(s.shape);
}

/** The variables named in the first column of the README's "Configuration" table. */
export function readmeTableVariables(readme: string): string[] {
  return tableVariables(readme, '## Configuration');
}

/** The variables named in the first column of the first table after the line `marker` starts. */
export function tableVariables(markdown: string, marker: string): string[] {
  const start = markdown.indexOf(marker);
  if (start < 0) throw new Error(`no "${marker}" before a configuration table`);
  const lines = markdown.slice(start).split('\n').slice(1);
  const rows: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(line);
  }
  return rows
    .slice(2) // header and separator
    .flatMap((row) => row.split('|')[1]!.split(','))
    .map((v) => v.trim().replace(/`/g, ''))
    .filter(Boolean);
}
