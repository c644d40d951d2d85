// What test/helm/ shares: the Helm CLI (found or installed by scripts/helm-cli.mjs), the chart rendered for
// each set of values it is tested with, and the validators every rendered object goes through:
// - Kubernetes and KEDA kinds: kubernetes-models (types, required fields, formats, enums; KEDA's ScaledObject
//   and TriggerAuthentication from @kubernetes-models/keda), plus a TypeScript check of each object against
//   the same library's interfaces, whose excess-property check fails an unknown (misspelt) field, as
//   `kubectl apply` does with its default strict field validation;
// - the Temporal Worker Controller's kinds: their CRDs' openAPIV3Schema (test/helm/crds/), made strict the
//   same way, and their x-kubernetes-validations rules, written out here.
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Service, ServiceAccount } from 'kubernetes-models/v1';
import { ScaledObject, TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const CHART = path.join(root, 'deploy/helm/review-video');
export const RELEASE = 'rv';
export const NAMESPACE = 'video';
/** The Kubernetes version `helm template` renders for (the chart's kubeVersion allows 1.27 and later). */
export const KUBE_VERSION = '1.31.0';
const helmHome = path.join(root, '.tmp', 'helm-cli', 'home');

// Rendered objects are free-form: each test narrows what it reads.
/* eslint-disable @typescript-eslint/no-explicit-any */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  [key: string]: any;
};
export type Container = {
  name: string;
  image: string;
  command?: string[];
  env?: { name: string; value?: string; valueFrom?: any }[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
  [key: string]: any;
};
export type PodTemplate = { metadata: { labels: Record<string, string> }; spec: any };

let helmPath: string | undefined;

/** Runs scripts/helm-cli.mjs as `npm test` does (a cold install builds Helm from the Go module proxy). */
export async function locateHelm(): Promise<string> {
  const script = path.join(root, 'scripts/helm-cli.mjs');
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [script, '--print-path'], { timeout: 1_500_000 });
    helmPath = stdout.trim();
  } catch (err) {
    const why = (err as { stderr?: string }).stderr || String(err);
    throw new Error(`the Helm CLI is not available (node scripts/helm-cli.mjs): ${why}`, { cause: err });
  }
  return helmPath;
}

/** `helm <args>` with its caches and config under .tmp/ (nothing of the user's Helm setup is read). */
export function helm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  if (!helmPath) throw new Error('call locateHelm() first');
  const r = spawnSync(helmPath, args, {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      PATH: process.env.PATH,
      HOME: helmHome,
      HELM_CACHE_HOME: path.join(helmHome, 'cache'),
      HELM_CONFIG_HOME: path.join(helmHome, 'config'),
      HELM_DATA_HOME: path.join(helmHome, 'data'),
    },
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A set of values the chart is linted and rendered with: files of test/helm/values/, and --set flags. */
export type Variant = { name: string; files: string[]; set?: string[] };

export const VARIANTS: Variant[] = [
  { name: 'default', files: [] },
  { name: 'production', files: ['production.yaml'] },
  { name: 'keda-mtls', files: ['keda-mtls.yaml'] },
  { name: 'worker-controller', files: ['worker-controller.yaml'] },
  { name: 'worker-controller-mtls', files: ['worker-controller-mtls.yaml'] },
  { name: 'worker-controller-legacy', files: ['worker-controller-legacy.yaml'] },
  { name: 'minimal', files: ['minimal.yaml'] },
];

export function valuesArgs(v: Variant): string[] {
  return [
    ...v.files.flatMap((f) => ['--values', path.join(root, 'test/helm/values', f)]),
    ...(v.set ?? []).flatMap((s) => ['--set', s]),
  ];
}

/** The values a variant renders with: the chart's defaults, then its files, merged as Helm does. */
export function valuesOf(v: Variant): any {
  const merge = (a: any, b: any): any =>
    a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)
      ? Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [k, merge(a[k], b[k])]))
      : b === undefined
        ? a
        : b;
  if (v.set?.length) throw new Error('valuesOf does not apply --set');
  return v.files.reduce(
    (acc, f) => merge(acc, parse(readFileSync(path.join(root, 'test/helm/values', f), 'utf8'))),
    parse(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')),
  );
}

export function templateArgs(v: Variant): string[] {
  return ['template', RELEASE, CHART, '--namespace', NAMESPACE, '--kube-version', KUBE_VERSION, ...valuesArgs(v)];
}

/**
 * The objects `helm template` renders, read as YAML 1.1 like Kubernetes' own parser (so an unquoted `on`
 * or `yes` would be a boolean here too, and fail the schema of a string field).
 */
export function render(v: Variant): K8sObject[] {
  const r = helm(templateArgs(v));
  if (r.status !== 0) throw new Error(`helm template (${v.name}) failed: ${r.stderr}`);
  return parseAllDocuments(r.stdout, { version: '1.1' })
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`${v.name}: ${d.errors.map((e) => e.message).join('; ')}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** The only object of `kind` whose name ends with `suffix` (e.g. "-worker"). */
export function one(objects: K8sObject[], kind: string, suffix = ''): K8sObject {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name.endsWith(suffix));
  if (found.length !== 1) throw new Error(`expected one ${kind} *${suffix}, found ${found.length}`);
  return found[0]!;
}

export function maybe(objects: K8sObject[], kind: string, suffix = ''): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name.endsWith(suffix));
}

export const podTemplateOf = (o: K8sObject): PodTemplate => o.spec.template as PodTemplate;

export function containerOf(template: PodTemplate, name?: string): Container {
  const containers = template.spec.containers as Container[];
  const c = name ? containers.find((x) => x.name === name) : containers[0];
  if (!c) throw new Error(`no container ${name ?? ''}`);
  return c;
}

// ---- the Worker Controller's part of the worker's pods ------------------------------------------------

/**
 * The pod template of one build's Deployment as the Worker Controller makes it from a WorkerDeployment and
 * its Connection: what internal/k8s/deployments.go (ApplyControllerPodSpecModifications, v1.8.1) adds, in its
 * order: the four variables, TEMPORAL_TLS_SERVER_NAME from the connection's tls.serverName, then the client
 * certificate (TEMPORAL_TLS, the key and certificate paths, the `temporal-tls` volume) or TEMPORAL_API_KEY.
 */
export function controllerPodTemplate(wd: K8sObject, connection: K8sObject | undefined, buildId: string): PodTemplate {
  const template = structuredClone(wd.spec.template) as PodTemplate;
  const conn = connection?.spec ?? {};
  const spec = template.spec;
  for (const c of spec.containers as Container[]) {
    c.env = [
      ...(c.env ?? []),
      { name: 'TEMPORAL_ADDRESS', value: conn.hostPort },
      { name: 'TEMPORAL_NAMESPACE', value: wd.spec.workerOptions.temporalNamespace },
      { name: 'TEMPORAL_DEPLOYMENT_NAME', value: `${NAMESPACE}/${wd.metadata.name}` },
      { name: 'TEMPORAL_WORKER_BUILD_ID', value: buildId },
    ];
    if (conn.tls?.serverName) c.env.push({ name: 'TEMPORAL_TLS_SERVER_NAME', value: conn.tls.serverName });
    if (conn.mutualTLSSecretRef) {
      c.env.push(
        { name: 'TEMPORAL_TLS', value: 'true' },
        { name: 'TEMPORAL_TLS_CLIENT_KEY_PATH', value: '/etc/temporal/tls/tls.key' },
        { name: 'TEMPORAL_TLS_CLIENT_CERT_PATH', value: '/etc/temporal/tls/tls.crt' },
      );
      c.volumeMounts = [...(c.volumeMounts ?? []), { name: 'temporal-tls', mountPath: '/etc/temporal/tls' }];
    } else if (conn.apiKeySecretRef) {
      c.env.push({ name: 'TEMPORAL_API_KEY', valueFrom: { secretKeyRef: conn.apiKeySecretRef } });
    }
  }
  if (conn.mutualTLSSecretRef)
    spec.volumes = [
      ...(spec.volumes ?? []),
      { name: 'temporal-tls', secret: { secretName: conn.mutualTLSSecretRef.name } },
    ];
  template.metadata.labels = {
    ...template.metadata.labels,
    'temporal.io/deployment-name': wd.metadata.name,
    'temporal.io/build-id': buildId,
  };
  return template;
}

/** That build's Deployment, for the Kubernetes validators. */
export function controllerDeployment(wd: K8sObject, template: PodTemplate, buildId: string): IDeployment {
  const selector = { 'temporal.io/deployment-name': wd.metadata.name, 'temporal.io/build-id': buildId };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `${wd.metadata.name}-${buildId}`, labels: selector },
    spec: { replicas: wd.spec.replicas, selector: { matchLabels: selector }, template },
  };
}

/** The worker's pods as they run: the Deployment's, or one build's under the Worker Controller. */
export function workerPods(objects: K8sObject[], buildId = 'build-1'): { template: PodTemplate; controller: boolean } {
  const deployment = maybe(objects, 'Deployment', '-worker');
  if (deployment) return { template: podTemplateOf(deployment), controller: false };
  const wd = objects.find((o) => o.kind === 'WorkerDeployment' || o.kind === 'TemporalWorkerDeployment');
  if (!wd) throw new Error('no worker');
  const connection = objects.find(
    (o) =>
      (o.kind === 'Connection' || o.kind === 'TemporalConnection') &&
      o.metadata.name === wd.spec.workerOptions.connectionRef.name,
  );
  return { template: controllerPodTemplate(wd, connection, buildId), controller: true };
}

// ---- environment -------------------------------------------------------------------------------------

/** Test-only values of the Secrets' keys, by variable: what a pod would read. */
export const SECRET_VALUES: Record<string, string> = {
  VIDEO_API_KEY: 'helm-test-video-key',
  REVIEW_ACCESS_TOKEN: 'helm-test-review-token',
  CALLBACK_SECRET: 'helm-test-callback-secret-0123456789',
  PAYLOAD_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
  CODEC_AUTH_TOKEN: 'helm-test-codec-token-0123456789',
  TEMPORAL_API_KEY: 'helm-test-temporal-api-key',
  NOTIFY_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
};

/** A container's environment as the process sees it, each Secret reference replaced by its variable's test value. */
export function envOf(c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.valueFrom?.secretKeyRef) {
      const value = SECRET_VALUES[e.name];
      if (value === undefined) throw new Error(`${c.name}: ${e.name} from a Secret has no test value`);
      env[e.name] = value;
    } else if (e.valueFrom) throw new Error(`${c.name}: ${e.name}: unexpected valueFrom`);
    else env[e.name] = e.value ?? '';
  }
  return env;
}

// ---- validation --------------------------------------------------------------------------------------

type Validating = { validate(): void };
const MODELS: Record<string, new (data: any) => Validating> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

/** The library's interface (module, name) of each kind, for the excess-property check. */
const INTERFACES: Record<string, [string, string]> = {
  'apps/v1/Deployment': ['kubernetes-models/apps/v1', 'IDeployment'],
  'autoscaling/v2/HorizontalPodAutoscaler': ['kubernetes-models/autoscaling/v2', 'IHorizontalPodAutoscaler'],
  'batch/v1/Job': ['kubernetes-models/batch/v1', 'IJob'],
  'networking.k8s.io/v1/Ingress': ['kubernetes-models/networking.k8s.io/v1', 'IIngress'],
  'networking.k8s.io/v1/NetworkPolicy': ['kubernetes-models/networking.k8s.io/v1', 'INetworkPolicy'],
  'policy/v1/PodDisruptionBudget': ['kubernetes-models/policy/v1', 'IPodDisruptionBudget'],
  'v1/Service': ['kubernetes-models/v1', 'IService'],
  'v1/ServiceAccount': ['kubernetes-models/v1', 'IServiceAccount'],
  'keda.sh/v1alpha1/ScaledObject': ['@kubernetes-models/keda/keda.sh/v1alpha1', 'IScaledObject'],
  'keda.sh/v1alpha1/TriggerAuthentication': ['@kubernetes-models/keda/keda.sh/v1alpha1', 'ITriggerAuthentication'],
};

const kindKey = (o: { apiVersion: string; kind: string }) => `${o.apiVersion}/${o.kind}`;

/** kubernetes-models' validation of one object: the problems, or [] (its kind must be one the chart may render). */
export function modelProblems(o: K8sObject | IDeployment): string[] {
  const Model = MODELS[kindKey(o as K8sObject)];
  if (!Model) return [`${kindKey(o as K8sObject)}: not a kind the chart is checked for`];
  try {
    new Model(o).validate();
    return [];
  } catch (err) {
    return [`${(o as K8sObject).kind} ${(o as K8sObject).metadata.name}: ${(err as Error).message}`];
  }
}

export const isModelKind = (o: { apiVersion: string; kind: string }) => kindKey(o) in MODELS;

/**
 * TypeScript's check of each object against kubernetes-models' interface of its kind: an object literal
 * with a property its type lacks is an error, so a misspelt field fails (`labels` typed `lables`, say).
 * One program for all the objects (a few seconds); returns the diagnostics with the object they are in.
 */
export function excessPropertyProblems(objects: { label: string; object: K8sObject | IDeployment }[]): string[] {
  const dir = path.join(root, '.tmp', 'helm-typecheck');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'objects.ts');
  const imports = new Map<string, Set<string>>();
  const lines: string[] = [];
  objects.forEach(({ label, object }, i) => {
    const iface = INTERFACES[kindKey(object as K8sObject)];
    if (!iface) throw new Error(`${label}: no interface for ${kindKey(object as K8sObject)}`);
    imports.set(iface[0], (imports.get(iface[0]) ?? new Set()).add(iface[1]));
    lines.push(`// ${label.replace(/\n/g, ' ')}`, `export const o${i}: ${iface[1]} = ${JSON.stringify(object)};`);
  });
  const header = [...imports].map(([m, names]) => `import type { ${[...names].join(', ')} } from '${m}';`);
  writeFileSync(file, `${[...header, ...lines].join('\n')}\n`);
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (!d.file || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const label = d.file.text.split('\n')[line - 1] ?? '';
    return `${label.replace(/^\/\/ /, '')}: ${message}`;
  });
}

// ---- the Worker Controller's CRDs ----------------------------------------------------------------------

type Schema = { [key: string]: any };

/**
 * An openAPIV3Schema as the API server applies it with strict field validation: every object schema that
 * lists its properties (and neither preserves unknown fields nor says what else it takes) refuses others.
 */
function strict(schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map(strict);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema))
    out[k] =
      k === 'properties' ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, strict(s as Schema)])) : strict(v);
  if (out.properties && out['x-kubernetes-preserve-unknown-fields'] !== true && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true });
const int = (bits: number) => ({
  type: 'number' as const,
  validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** (bits - 1),
});
ajv.addFormat('int32', int(32));
ajv.addFormat('int64', int(64));
ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
ajv.addFormat('byte', (s: string) => /^[A-Za-z0-9+/]*={0,2}$/.test(s));

type Crd = { validate: ValidateFunction; rules: string[] };
function loadCrd(file: string): Crd {
  const crd = parse(readFileSync(path.join(root, 'test/helm/crds', file), 'utf8')) as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
  };
  const schema = crd.spec.versions.find((v) => v.name === 'v1alpha1')!.schema.openAPIV3Schema;
  const rules: string[] = [];
  const collect = (s: any) => {
    if (Array.isArray(s)) s.forEach(collect);
    else if (s && typeof s === 'object')
      for (const [k, v] of Object.entries(s)) {
        if (k === 'x-kubernetes-validations') rules.push(...(v as { rule: string }[]).map((r) => r.rule));
        else collect(v);
      }
  };
  collect(schema);
  return { validate: ajv.compile(strict(schema)), rules };
}

const CRDS: Record<string, Crd> = {
  'temporal.io/v1alpha1/WorkerDeployment': loadCrd('temporal.io_workerdeployments.yaml'),
  // Before 1.7 the same schema under another name (test/helm/crds/README.md).
  'temporal.io/v1alpha1/TemporalWorkerDeployment': loadCrd('temporal.io_workerdeployments.yaml'),
  'temporal.io/v1alpha1/Connection': loadCrd('temporal.io_connections.yaml'),
  'temporal.io/v1alpha1/TemporalConnection': loadCrd('temporal.io_temporalconnections.v1.6.0.yaml'),
  'temporal.io/v1alpha1/WorkerResourceTemplate': loadCrd('temporal.io_workerresourcetemplates.yaml'),
};

export const isCrdKind = (o: { apiVersion: string; kind: string }) => kindKey(o) in CRDS;

/** Go duration ("1h30m", "90s") in seconds. */
function goDurationSeconds(d: string): number {
  const units: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  const parts = [...d.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== d) throw new Error(`not a Go duration: ${d}`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * units[p[2]!]!, 0);
}

/**
 * The CRDs' x-kubernetes-validations (CEL) rules, one check each. CEL_RULES lists the rules these stand for:
 * a test holds it equal to the rules the vendored CRDs carry, so a new rule is noticed.
 */
export const CEL_RULES = [
  "duration(self.pauseDuration) >= duration('30s')",
  "self.strategy != 'Progressive' || (has(self.steps) && size(self.steps) > 0)",
  '!has(self.gate) || !has(self.gate.inputFrom) || (has(self.gate.inputFrom.configMapKeyRef) != has(self.gate.inputFrom.secretKeyRef))',
  'size(self.metadata.name) <= 63',
  '!(has(self.mutualTLSSecretRef) && has(self.apiKeySecretRef))',
  'has(self.workerDeploymentRef) || has(self.temporalWorkerDeploymentRef)',
  '!(has(self.workerDeploymentRef) && has(self.temporalWorkerDeploymentRef))',
];

export function crdRules(): string[] {
  return [...new Set(Object.values(CRDS).flatMap((c) => c.rules.map((r) => r.replace(/\s+/g, ' '))))];
}

function celProblems(o: K8sObject): string[] {
  const problems: string[] = [];
  const s = o.spec ?? {};
  if (o.kind === 'WorkerDeployment' || o.kind === 'TemporalWorkerDeployment') {
    if (o.metadata.name.length > 63) problems.push('name cannot be more than 63 characters');
    const r = s.rollout ?? {};
    for (const step of r.steps ?? [])
      if (goDurationSeconds(step.pauseDuration) < 30) problems.push('pause duration must be at least 30s');
    if (r.strategy === 'Progressive' && !(r.steps?.length > 0))
      problems.push('steps are required for Progressive rollout');
    const from = r.gate?.inputFrom;
    if (from && Boolean(from.configMapKeyRef) === Boolean(from.secretKeyRef))
      problems.push('exactly one of configMapKeyRef or secretKeyRef must be set');
  }
  if ((o.kind === 'Connection' || o.kind === 'TemporalConnection') && s.mutualTLSSecretRef && s.apiKeySecretRef)
    problems.push('Only one of mutualTLSSecretRef or apiKeySecretRef may be set');
  if (o.kind === 'WorkerResourceTemplate') {
    if (!s.workerDeploymentRef && !s.temporalWorkerDeploymentRef) problems.push('workerDeploymentRef must be set');
    if (s.workerDeploymentRef && s.temporalWorkerDeploymentRef)
      problems.push('only one of workerDeploymentRef or temporalWorkerDeploymentRef may be set');
  }
  return problems.map((p) => `${o.kind} ${o.metadata.name}: ${p}`);
}

/** A Worker Controller object against its CRD (strict schema, then the CEL rules). */
export function crdProblems(o: K8sObject): string[] {
  const crd = CRDS[kindKey(o)];
  if (!crd) return [`${kindKey(o)}: no CRD`];
  // Checked as unknown data: the validator's type guard would narrow `o` away otherwise.
  const data: unknown = o;
  if (!crd.validate(data))
    return [`${o.kind} ${o.metadata.name}: ${ajv.errorsText(crd.validate.errors, { separator: '; ' })}`];
  return celProblems(o);
}

/**
 * The ScaledObject the Worker Controller renders from a WorkerResourceTemplate for one build (controller
 * 1.8: the `{}` scaleTargetRef and the "" trigger fields filled in, name and labels set).
 */
export function renderedScaledObject(wrt: K8sObject, wd: K8sObject, buildId: string): K8sObject {
  const so = structuredClone(wrt.spec.template) as K8sObject;
  so.metadata = { name: `${wd.metadata.name}-keda-${buildId}`, labels: { 'temporal.io/build-id': buildId } };
  if (so.spec.scaleTargetRef && Object.keys(so.spec.scaleTargetRef).length === 0)
    so.spec.scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: `${wd.metadata.name}-${buildId}` };
  for (const t of so.spec.triggers ?? []) {
    if (t.type !== 'temporal') continue;
    const fill: Record<string, string> = {
      namespace: wd.spec.workerOptions.temporalNamespace,
      workerDeploymentName: `${NAMESPACE}/${wd.metadata.name}`,
      workerDeploymentBuildId: buildId,
    };
    for (const [k, v] of Object.entries(fill)) if (t.metadata[k] === '') t.metadata[k] = v;
  }
  return so;
}
