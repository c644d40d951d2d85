// The Helm chart (deploy/helm/review-video), without a cluster: `helm lint --strict` and `helm template` for
// the default values and each switch (test/helm/values/), every rendered object validated against the
// Kubernetes schemas (kubernetes-models, @kubernetes-models/keda) and the Worker Controller's CRDs, and held
// against the design: probes, grace periods, disruption budgets, memory sized from BENCHMARKS.md, autoscaling,
// network policies, secrets only from Secrets, the search-attribute Job. The Helm CLI comes from
// scripts/helm-cli.mjs (the Go module proxy on a machine without it).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contractSearchAttributes, registeredSearchAttributes } from '../support/search-attribute-script.js';
import { WORKER_MEMORY, cacheSizeForBudget } from '../../src/config/worker-cache.js';
import {
  CEL_RULES,
  CHART,
  type Container,
  type K8sObject,
  NAMESPACE,
  type PodTemplate,
  VARIANTS,
  type Variant,
  containerOf,
  controllerDeployment,
  crdProblems,
  crdRules,
  envOf,
  excessPropertyProblems,
  helm,
  isCrdKind,
  isModelKind,
  locateHelm,
  maybe,
  modelProblems,
  one,
  podTemplateOf,
  render,
  renderedScaledObject,
  root,
  templateArgs,
  valuesArgs,
  valuesOf,
  workerPods,
} from './support.js';

const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');
const rendered = new Map<string, K8sObject[]>();
const objectsOf = (name: string) => {
  const objects = rendered.get(name);
  if (!objects) throw new Error(`variant ${name} not rendered`);
  return objects;
};
const variant = (name: string) => VARIANTS.find((v) => v.name === name)!;

beforeAll(async () => {
  await locateHelm();
  for (const v of VARIANTS) rendered.set(v.name, render(v));
}, 1_500_000);

const DNS_1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SECRET_VARIABLE = /(KEYS?|TOKEN|SECRET|PASSWORD|PWD)$/;

/** Every pod template the chart renders, with its owner. */
function podTemplates(objects: K8sObject[]): { owner: string; template: PodTemplate }[] {
  return objects
    .filter((o) => ['Deployment', 'Job', 'WorkerDeployment', 'TemporalWorkerDeployment'].includes(o.kind))
    .map((o) => ({ owner: `${o.kind} ${o.metadata.name}`, template: podTemplateOf(o) }));
}

const probe = (c: Container, kind: string) => c[kind]?.httpGet as { path: string; port: string | number } | undefined;
const portNumber = (c: Container, port: string | number) =>
  typeof port === 'number' ? port : c.ports?.find((p) => p.name === port)?.containerPort;
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('helm lint and helm template', () => {
  it.each(VARIANTS.map((v) => [v.name, v] as const))('lints cleanly with --strict: %s', (_name, v: Variant) => {
    const r = helm(['lint', CHART, '--strict', '--kube-version', '1.31.0', '--namespace', NAMESPACE, ...valuesArgs(v)]);
    expect(r.stdout + r.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
    expect(r.status).toBe(0);
  });

  it('renders the objects each switch asks for, and nothing else', () => {
    const kinds = (name: string) =>
      objectsOf(name)
        .map((o) => `${o.kind} ${o.metadata.name.replace(/^rv-review-video-?/, '') || '(fullname)'}`)
        .sort();
    const base = [
      'Deployment callbacks',
      'HorizontalPodAutoscaler callbacks',
      'Job search-attributes',
      'NetworkPolicy callbacks',
      'NetworkPolicy search-attributes',
      'NetworkPolicy worker',
      'PodDisruptionBudget callbacks',
      'PodDisruptionBudget worker',
      'Service callbacks',
      'ServiceAccount (fullname)',
    ];
    expect(kinds('default')).toEqual([...base, 'Deployment worker'].sort());
    expect(kinds('production')).toEqual(
      [
        ...base,
        'Deployment worker',
        'Deployment codec',
        'Service codec',
        'Ingress callbacks',
        'Ingress codec',
        'NetworkPolicy codec',
      ].sort(),
    );
    expect(kinds('keda-mtls')).toEqual(
      [...base, 'Deployment worker', 'ScaledObject worker', 'TriggerAuthentication worker-temporal'].sort(),
    );
    expect(kinds('worker-controller')).toEqual(
      [
        ...base,
        'Connection (fullname)',
        'WorkerDeployment worker',
        'WorkerResourceTemplate worker-keda',
        'TriggerAuthentication worker-temporal',
      ].sort(),
    );
    expect(kinds('worker-controller-mtls')).toEqual(
      [...base, 'Connection (fullname)', 'WorkerDeployment worker'].sort(),
    );
    expect(kinds('worker-controller-legacy')).toEqual(
      [...base, 'TemporalConnection (fullname)', 'TemporalWorkerDeployment worker'].sort(),
    );
    expect(kinds('minimal')).toEqual(['Deployment worker']);
  });
});

describe('every rendered object against the Kubernetes schemas', () => {
  it('validates with kubernetes-models (Kubernetes and KEDA kinds) and the Worker Controller CRDs', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const [name, objects] of rendered) {
      for (const o of objects) {
        checked++;
        if (isModelKind(o)) problems.push(...modelProblems(o).map((p) => `${name}: ${p}`));
        else if (isCrdKind(o)) problems.push(...crdProblems(o).map((p) => `${name}: ${p}`));
        else problems.push(`${name}: ${o.apiVersion}/${o.kind} is validated by nothing`);
        if (!DNS_1123.test(o.metadata.name) || o.metadata.name.length > 63)
          problems.push(`${name}: ${o.kind} name ${o.metadata.name} is not a DNS-1123 label`);
      }
      // What the Worker Controller makes of the chart's objects must be valid too: each build's
      // Deployment, and the ScaledObject it renders per build from the WorkerResourceTemplate.
      const wd = objects.find((o) => o.kind.endsWith('WorkerDeployment'));
      if (wd) {
        const { template } = workerPods(objects);
        problems.push(...modelProblems(controllerDeployment(wd, template, 'build-1')).map((p) => `${name}: ${p}`));
      }
      const wrt = maybe(objects, 'WorkerResourceTemplate');
      if (wrt && wd)
        problems.push(...modelProblems(renderedScaledObject(wrt, wd, 'build-1')).map((p) => `${name}: ${p}`));
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(60);
  });

  it('has no field that the schemas lack (TypeScript excess-property check against the same models)', () => {
    const objects = [...rendered].flatMap(([name, list]) => {
      const own = list
        .filter(isModelKind)
        .map((object) => ({ label: `${name} ${object.kind} ${object.metadata.name}`, object }));
      const wd = list.find((o) => o.kind.endsWith('WorkerDeployment'));
      const wrt = maybe(list, 'WorkerResourceTemplate');
      const derived = wd
        ? [
            { label: `${name} build Deployment`, object: controllerDeployment(wd, workerPods(list).template, 'b1') },
            ...(wrt ? [{ label: `${name} build ScaledObject`, object: renderedScaledObject(wrt, wd, 'b1') }] : []),
          ]
        : [];
      return [...own, ...derived];
    });
    expect(objects.length).toBeGreaterThan(60);
    expect(excessPropertyProblems(objects)).toEqual([]);
  });

  it('catches a misspelt field, a wrong type and a broken CEL rule (the validators are not blind)', () => {
    const deployment = structuredClone(one(objectsOf('default'), 'Deployment', '-worker'));
    deployment.spec.template.spec.containers[0].readinesProbe =
      deployment.spec.template.spec.containers[0].readinessProbe;
    expect(excessPropertyProblems([{ label: 'misspelt', object: deployment }]).join()).toMatch(/readinesProbe/);
    const typed = structuredClone(one(objectsOf('default'), 'Deployment', '-worker'));
    typed.spec.replicas = '2';
    expect(modelProblems(typed).join()).toMatch(/replicas must be integer/);
    const wd = structuredClone(one(objectsOf('worker-controller'), 'WorkerDeployment'));
    wd.spec.rollout.stragety = 'Progressive';
    expect(crdProblems(wd).join()).toMatch(/must NOT have additional properties/);
    const fast = structuredClone(one(objectsOf('worker-controller'), 'WorkerDeployment'));
    fast.spec.rollout.steps[0].pauseDuration = '10s';
    expect(crdProblems(fast)).toEqual([`WorkerDeployment ${fast.metadata.name}: pause duration must be at least 30s`]);
    const so = structuredClone(one(objectsOf('keda-mtls'), 'ScaledObject'));
    so.spec.triggers[0].metadata.targetQueueSize = 10;
    expect(modelProblems(so).join()).toMatch(/targetQueueSize must be string/);
  });

  it('checks every CEL rule of the vendored CRDs', () => {
    expect(crdRules().sort()).toEqual([...CEL_RULES].sort());
  });
});

describe('the worker and the receiver', () => {
  it('probe /healthz (liveness, startup) and /readyz (readiness) on the port each process serves them on', () => {
    for (const [name, objects] of rendered) {
      const worker = containerOf(workerPods(objects).template, 'worker');
      const metricsPort = Number(/:(\d+)$/.exec(envOf(worker).PROMETHEUS_BIND_ADDRESS ?? '')?.[1]);
      for (const [kind, p] of [
        ['livenessProbe', '/healthz'],
        ['startupProbe', '/healthz'],
        ['readinessProbe', '/readyz'],
      ] as const) {
        expect(probe(worker, kind)?.path, `${name} worker ${kind}`).toBe(p);
        expect(portNumber(worker, probe(worker, kind)!.port), `${name} worker ${kind} port`).toBe(metricsPort);
      }
      const callbacks = maybe(objects, 'Deployment', '-callbacks');
      if (callbacks) {
        const c = containerOf(podTemplateOf(callbacks));
        for (const [kind, p] of [
          ['livenessProbe', '/healthz'],
          ['startupProbe', '/healthz'],
          ['readinessProbe', '/readyz'],
        ] as const) {
          expect(probe(c, kind)?.path, `${name} callbacks ${kind}`).toBe(p);
          expect(portNumber(c, probe(c, kind)!.port)).toBe(Number(envOf(c).CALLBACK_PORT));
        }
      }
      const codec = maybe(objects, 'Deployment', '-codec');
      if (codec) {
        // The codec server serves /healthz only (src/codec/server.ts).
        const c = containerOf(podTemplateOf(codec));
        expect(probe(c, 'livenessProbe')?.path).toBe('/healthz');
        expect(probe(c, 'readinessProbe')?.path).toBe('/healthz');
        expect(portNumber(c, probe(c, 'readinessProbe')!.port)).toBe(Number(envOf(c).CODEC_PORT));
      }
    }
    expect(read('src/callbacks/server.ts')).toMatch(/\/readyz/);
    expect(read('src/worker.ts')).toMatch(/'\/healthz', '\/readyz'/);
  });

  it('gives the worker a grace period above its shutdownGraceTime, and the receiver one above its drain', () => {
    const grace = /shutdownGraceTime: '(\d+)s'/.exec(read('src/worker.ts'))?.[1];
    expect(grace, 'src/worker.ts sets shutdownGraceTime').toBeDefined();
    for (const [name, objects] of rendered) {
      const { template } = workerPods(objects);
      // The grace time, then closing the service clients and the connection: 10 s of margin (as compose).
      expect(template.spec.terminationGracePeriodSeconds, name).toBeGreaterThanOrEqual(Number(grace) + 10);
      const callbacks = maybe(objects, 'Deployment', '-callbacks');
      if (!callbacks) continue;
      const drain = Number(envOf(containerOf(podTemplateOf(callbacks))).CALLBACK_DRAIN_DELAY_MS);
      expect(
        drain,
        `${name}: a drain delay, so that endpoints stop sending before the listener closes`,
      ).toBeGreaterThan(0);
      expect(podTemplateOf(callbacks).spec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(drain + 10_000);
    }
  });

  it('sizes the worker from BENCHMARKS.md and derives WORKER_MEMORY_BUDGET_MIB from its memory limit', () => {
    // The default worker's row of BENCHMARKS.md's memory table: | `default` | callbacks | jobs | idle | waiting |
    const row = /^\| `default` \| callbacks \| 10,000 \| (\d+) \| (\d+) \|/m.exec(read('BENCHMARKS.md'));
    expect(row, 'BENCHMARKS.md has the RSS of the default worker with 10,000 jobs waiting').not.toBeNull();
    const [, idle, measured] = row!.map(Number);
    const mib = (q: string) => (q.endsWith('Gi') ? Number(q.slice(0, -2)) * 1024 : Number(q.slice(0, -2)));
    for (const [name, objects] of rendered) {
      const worker = containerOf(workerPods(objects).template, 'worker');
      const limit = mib(worker.resources.limits.memory);
      const values = valuesOf(variant(name));
      expect(Number(envOf(worker).WORKER_MEMORY_BUDGET_MIB), name).toBe(limit - values.worker.memoryHeadroomMiB);
      // Requests equal the limit: the pod is not the first evicted under memory pressure, nor overcommitted.
      expect(worker.resources.requests.memory, name).toBe(worker.resources.limits.memory);
      expect(worker.resources.requests.cpu, `${name}: a CPU request`).toBeDefined();
      // The heap flag the benchmark measured with (and the image's CMD).
      expect(worker.command, name).toEqual(['node', '--max-old-space-size=256', 'dist/worker.js']);
    }
    // The default: 512 MiB (the target of issue 15), in which the benchmark held 10,000 waiting jobs, and the
    // package's own default budget, so the sticky cache is the one that was measured.
    const worker = containerOf(workerPods(objectsOf('default')).template, 'worker');
    expect(mib(worker.resources.limits.memory)).toBe(512);
    expect(measured).toBeLessThanOrEqual(512);
    expect(idle).toBeLessThan(WORKER_MEMORY.budgetMiB);
    expect(Number(envOf(worker).WORKER_MEMORY_BUDGET_MIB)).toBe(WORKER_MEMORY.budgetMiB);
    expect(read('Dockerfile')).toContain('CMD ["node", "--max-old-space-size=256", "dist/worker.js"]');
    // A 1 GiB limit (production values) holds a larger cache: what src/config/worker-cache.ts makes of the budget.
    const big = containerOf(workerPods(objectsOf('production')).template, 'worker');
    expect(cacheSizeForBudget(Number(envOf(big).WORKER_MEMORY_BUDGET_MIB))).toBeGreaterThan(
      cacheSizeForBudget(WORKER_MEMORY.budgetMiB),
    );
    // Every container has memory requests and limits.
    for (const [name, objects] of rendered)
      for (const { owner, template } of podTemplates(objects))
        for (const c of template.spec.containers as Container[]) {
          expect(c.resources?.limits?.memory, `${name} ${owner}`).toBeDefined();
          expect(c.resources?.requests?.memory, `${name} ${owner}`).toBeDefined();
        }
  });

  it('keeps each disruption budget on the pods it protects, of every build under the Worker Controller', () => {
    for (const [name, objects] of rendered) {
      const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
      if (name === 'minimal') {
        expect(pdbs).toEqual([]);
        continue;
      }
      const worker = one(objects, 'PodDisruptionBudget', '-worker');
      expect(worker.spec.maxUnavailable, name).toBe(1);
      expect(worker.spec.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
      for (const buildId of ['build-a', 'build-b'])
        expect(matches(worker.spec.selector.matchLabels, workerPods(objects, buildId).template.metadata.labels)).toBe(
          true,
        );
      const callbacks = one(objects, 'PodDisruptionBudget', '-callbacks');
      const receiver = podTemplateOf(one(objects, 'Deployment', '-callbacks'));
      expect(matches(callbacks.spec.selector.matchLabels, receiver.metadata.labels), name).toBe(true);
      expect(matches(callbacks.spec.selector.matchLabels, workerPods(objects).template.metadata.labels)).toBe(false);
    }
  });

  it('labels pods with the app version, never the chart version (a chart-only release is no new worker version)', () => {
    const chart = parse(read('deploy/helm/review-video/Chart.yaml')) as { appVersion: string; version: string };
    const pkg = JSON.parse(read('package.json')) as { version: string };
    expect(chart.appVersion, "Chart.yaml's appVersion (the default image tag) follows package.json's version").toBe(
      pkg.version,
    );
    for (const [name, objects] of rendered)
      for (const { owner, template } of podTemplates(objects)) {
        expect(template.metadata.labels['helm.sh/chart'], `${name} ${owner}`).toBeUndefined();
        expect(template.metadata.labels['app.kubernetes.io/version'], `${name} ${owner}`).toBe(chart.appVersion);
      }
    // The image: the package's version by default, as built from the Dockerfile.
    expect(containerOf(workerPods(objectsOf('default')).template).image).toBe(`temporal-review-video:${pkg.version}`);
  });

  it('runs every container as non-root, read-only, without privileges or a service-account token', () => {
    for (const [name, objects] of rendered)
      for (const { owner, template } of podTemplates(objects)) {
        expect(template.spec.securityContext.runAsNonRoot, `${name} ${owner}`).toBe(true);
        // Numeric: the image's user is `node` by name, which the kubelet cannot check against runAsNonRoot.
        expect(template.spec.securityContext.runAsUser).toBe(1000);
        expect(template.spec.automountServiceAccountToken).toBe(false);
        for (const c of template.spec.containers as Container[]) {
          expect(c.securityContext, `${name} ${owner} ${c.name}`).toMatchObject({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          });
          expect(c.volumeMounts?.some((m) => m.mountPath === '/tmp')).toBe(true);
        }
      }
  });
});

describe('autoscaling', () => {
  it('scales the receiver on CPU with an HPA, which then owns its replica count', () => {
    for (const name of ['default', 'production', 'worker-controller']) {
      const objects = objectsOf(name);
      const hpa = one(objects, 'HorizontalPodAutoscaler', '-callbacks');
      const deployment = one(objects, 'Deployment', '-callbacks');
      expect(hpa.spec.scaleTargetRef).toEqual({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: deployment.metadata.name,
      });
      expect(hpa.spec.metrics).toEqual([
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      ]);
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(deployment.spec.replicas, 'the HPA owns the replica count').toBeUndefined();
      // Utilization is relative to the request.
      expect(containerOf(podTemplateOf(deployment)).resources.requests.cpu).toBeDefined();
    }
  });

  it('scales plain workers with one ScaledObject on the unversioned task queue backlog (KEDA Temporal scaler)', () => {
    const objects = objectsOf('keda-mtls');
    const so = one(objects, 'ScaledObject', '-worker');
    const deployment = one(objects, 'Deployment', '-worker');
    expect(deployment.spec.replicas, 'KEDA owns the replica count').toBeUndefined();
    expect(so.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(so.spec).toMatchObject({ minReplicaCount: 2, maxReplicaCount: 20, pollingInterval: 30 });
    const [trigger, ...others] = so.spec.triggers;
    expect(others).toEqual([]);
    const env = envOf(containerOf(podTemplateOf(deployment)));
    expect(trigger).toMatchObject({
      type: 'temporal',
      useCachedMetrics: true,
      metadata: {
        endpoint: env.TEMPORAL_ADDRESS,
        namespace: env.TEMPORAL_NAMESPACE,
        taskQueue: env.TEMPORAL_TASK_QUEUE,
        queueTypes: 'workflow,activity',
        targetQueueSize: '10',
        activationTargetQueueSize: '0',
        tlsServerName: env.TEMPORAL_TLS_SERVER_NAME,
      },
    });
    // The scaler authenticates as the worker does: its client certificate and CA, from the same Secrets.
    const auth = one(objects, 'TriggerAuthentication');
    expect(trigger.authenticationRef).toEqual({ name: auth.metadata.name });
    const volumes = Object.fromEntries(
      (podTemplateOf(deployment).spec.volumes as { name: string; secret?: { secretName: string } }[]).map((v) => [
        v.name,
        v.secret?.secretName,
      ]),
    );
    expect(auth.spec.secretTargetRef).toEqual([
      { parameter: 'cert', name: volumes['temporal-tls'], key: 'tls.crt' },
      { parameter: 'key', name: volumes['temporal-tls'], key: 'tls.key' },
      { parameter: 'ca', name: volumes['temporal-server-ca'], key: 'ca.pem' },
    ]);
    for (const v of Object.values(trigger.metadata))
      expect(typeof v, 'KEDA trigger metadata are strings').toBe('string');
  });

  it('scales each build under the Worker Controller with its own ScaledObject on that version’s backlog', () => {
    const objects = objectsOf('worker-controller');
    const wd = one(objects, 'WorkerDeployment');
    const wrt = one(objects, 'WorkerResourceTemplate');
    expect(wd.spec.replicas, 'the scalers own the replica counts').toBeUndefined();
    expect(wrt.spec.workerDeploymentRef).toEqual({ name: wd.metadata.name });
    // The fields the controller fills in per build (controller 1.8): left as its opt-in sentinels.
    expect(wrt.spec.template.spec.scaleTargetRef).toEqual({});
    expect(wrt.spec.template.spec.triggers[0].metadata).toMatchObject({
      namespace: '',
      workerDeploymentName: '',
      workerDeploymentBuildId: '',
      taskQueue: 'video-generation',
      endpoint: 'my-namespace.a1b2c.tmprl.cloud:7233',
    });
    const so = renderedScaledObject(wrt, wd, 'abc123');
    const env = envOf(containerOf(workerPods(objects, 'abc123').template));
    expect(so.spec.scaleTargetRef.name).toBe(`${wd.metadata.name}-abc123`);
    // The version the scaler reads is the one the worker polls as.
    expect(so.spec.triggers[0].metadata).toMatchObject({
      namespace: env.TEMPORAL_NAMESPACE,
      workerDeploymentName: env.TEMPORAL_DEPLOYMENT_NAME,
      workerDeploymentBuildId: env.TEMPORAL_WORKER_BUILD_ID,
    });
    // API key from the Secret the Connection names.
    const connection = one(objects, 'Connection');
    expect(one(objects, 'TriggerAuthentication').spec.secretTargetRef).toEqual([
      { parameter: 'apiKey', ...connection.spec.apiKeySecretRef },
    ]);
  });

  it('fixes the worker replica count where nothing scales it', () => {
    expect(one(objectsOf('default'), 'Deployment', '-worker').spec.replicas).toBe(2);
    expect(one(objectsOf('worker-controller-mtls'), 'WorkerDeployment').spec.replicas).toBe(3);
    expect(one(objectsOf('minimal'), 'Deployment', '-worker').spec.replicas).toBe(1);
  });
});

describe('network policies', () => {
  const portsOf = (rule: { ports?: { port: number; protocol: string }[] }) =>
    (rule.ports ?? []).map((p) => `${p.protocol}/${p.port}`).sort();

  it('let workers reach only DNS, Temporal and the services’ public addresses, and be scraped', () => {
    for (const name of ['default', 'production', 'keda-mtls', 'worker-controller']) {
      const objects = objectsOf(name);
      const np = one(objects, 'NetworkPolicy', '-worker');
      const { template } = workerPods(objects);
      expect(matches(np.spec.podSelector.matchLabels, template.metadata.labels), name).toBe(true);
      expect(np.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      const env = envOf(containerOf(template));
      const temporalPort = Number(/:(\d+)$/.exec(env.TEMPORAL_ADDRESS ?? valuesOf(variant(name)).temporal.address)![1]);
      // No rule without ports: nothing is open to every port.
      for (const rule of [...np.spec.egress, ...np.spec.ingress]) expect(rule.ports?.length, name).toBeGreaterThan(0);
      const egress = np.spec.egress as {
        ports: { port: number; protocol: string }[];
        to?: { ipBlock: { cidr: string; except?: string[] } }[];
      }[];
      expect(portsOf(egress[0]!)).toEqual(['TCP/53', 'UDP/53']);
      expect(portsOf(egress[1]!)).toEqual([`TCP/${temporalPort}`]);
      expect(portsOf(egress[2]!)).toEqual(['TCP/443']);
      // The services: public addresses only, as the worker accepts (ALLOW_PRIVATE_URLS=false).
      expect(env.ALLOW_PRIVATE_URLS).toBe('false');
      const blocks = egress[2]!.to!.map((t) => t.ipBlock);
      expect(blocks.map((b) => b.cidr)).toEqual(['0.0.0.0/0', '::/0']);
      for (const cidr of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'])
        expect(blocks[0]!.except).toContain(cidr);
      expect(blocks[1]!.except).toEqual(['fc00::/7', 'fe80::/10']);
      const extra = valuesOf(variant(name)).networkPolicy.extraEgress;
      expect(egress.slice(3)).toEqual(extra);
      // In: only Prometheus' scrape of the metrics port.
      expect(np.spec.ingress.map(portsOf)).toEqual([
        [`TCP/${Number(/:(\d+)$/.exec(env.PROMETHEUS_BIND_ADDRESS!)![1])}`],
      ]);
    }
    // Narrowed to the frontend's pods when the values say where Temporal runs.
    const narrowed = one(objectsOf('keda-mtls'), 'NetworkPolicy', '-worker').spec.egress[1];
    expect(narrowed.to).toEqual(valuesOf(variant('keda-mtls')).networkPolicy.temporal.to);
  });

  it('let the receiver take callbacks from anywhere and reach only DNS and Temporal; the codec server reach nothing', () => {
    const objects = objectsOf('production');
    const np = one(objects, 'NetworkPolicy', '-callbacks');
    const receiver = podTemplateOf(one(objects, 'Deployment', '-callbacks'));
    expect(matches(np.spec.podSelector.matchLabels, receiver.metadata.labels)).toBe(true);
    expect(np.spec.ingress).toEqual([
      { ports: [{ protocol: 'TCP', port: Number(envOf(containerOf(receiver)).CALLBACK_PORT) }] },
    ]);
    expect(np.spec.egress.slice(0, 2).map(portsOf)).toEqual([['TCP/53', 'UDP/53'], ['TCP/7233']]);
    const codec = one(objects, 'NetworkPolicy', '-codec');
    expect(codec.spec.egress).toEqual([]);
    expect(codec.spec.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 8888 }] }]);
    const job = one(objects, 'NetworkPolicy', '-search-attributes');
    expect(job.spec.ingress).toEqual([]);
    expect(job.spec.egress.map(portsOf)).toEqual([['TCP/53', 'UDP/53'], ['TCP/7233']]);
    expect(matches(job.spec.podSelector.matchLabels, podTemplateOf(one(objects, 'Job')).metadata.labels)).toBe(true);
  });
});

describe('secrets', () => {
  it('come only from Kubernetes Secrets: no Secret is rendered and no secret variable has a value', () => {
    for (const [name, objects] of rendered) {
      expect(
        objects.filter((o) => o.kind === 'Secret'),
        name,
      ).toEqual([]);
      for (const { owner, template } of podTemplates(objects))
        for (const c of template.spec.containers as Container[])
          for (const e of c.env ?? []) {
            if (SECRET_VARIABLE.test(e.name))
              expect(e.value, `${name} ${owner} ${e.name} must come from a Secret`).toBeUndefined();
            if (e.valueFrom) expect(Object.keys(e.valueFrom)).toEqual(['secretKeyRef']);
          }
    }
    // The Secret and key of each variable: the default one, or the one the values name.
    const worker = containerOf(workerPods(objectsOf('production')).template);
    const ref = (c: Container, v: string) => c.env!.find((e) => e.name === v)!.valueFrom.secretKeyRef;
    expect(ref(worker, 'VIDEO_API_KEY')).toEqual({ name: 'review-video', key: 'VIDEO_API_KEY' });
    expect(ref(worker, 'TEMPORAL_API_KEY')).toEqual({ name: 'temporal-cloud', key: 'api-key' });
    expect(ref(worker, 'NOTIFY_SECRET')).toEqual({ name: 'review-video', key: 'NOTIFY_SECRET' });
  });

  it('refuse a secret written in the values (the values schema)', () => {
    const attempts = [
      ['--set', 'config.VIDEO_API_KEY=sk-plain'],
      ['--set', 'config.CALLBACK_SECRET=plain-secret-0123456789'],
      ['--set-json', 'worker.extraEnv=[{"name":"REVIEW_ACCESS_TOKEN","value":"plain"}]'],
      ['--set-json', 'callbacks.extraEnv=[{"name":"AWS_SECRET_ACCESS_KEY","value":"plain"}]'],
    ];
    for (const args of attempts) {
      const r = helm([...templateArgs(VARIANTS[0]!), ...args]);
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.stderr).toMatch(/values don't meet the specifications of the schema/);
      expect(r.stderr).not.toMatch(/plain/);
    }
    // A variable named like a secret is fine from a Secret.
    const fromSecret = helm([
      ...templateArgs(VARIANTS[0]!),
      '--set-json',
      'worker.extraEnv=[{"name":"AWS_SECRET_ACCESS_KEY","valueFrom":{"secretKeyRef":{"name":"aws","key":"secret"}}}]',
    ]);
    expect(fromSecret.stderr).toBe('');
    expect(fromSecret.status).toBe(0);
  });
});

describe('the search-attribute registration Job', () => {
  it('registers exactly the search attributes of src/workflows/search-attributes.ts, before install and upgrade', () => {
    const job = one(objectsOf('default'), 'Job');
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    const c = containerOf(podTemplateOf(job));
    expect(c.command).toEqual(['/bin/sh', '-c']);
    const script = (c.args as string[]).join('\n');
    expect(registeredSearchAttributes(script)).toEqual(contractSearchAttributes());
    expect(script).toMatch(/temporal operator search-attribute create --namespace "\$ns" --name "\$1" --type "\$2"/);
    expect(script).toMatch(/already exists/); // a second run (the next upgrade) succeeds
    expect(script).toMatch(/temporal operator namespace describe/); // waits until the namespace is served
    const sh = spawnSync('sh', ['-n'], { input: script, encoding: 'utf8' });
    expect(sh.stderr).toBe('');
    expect(sh.status).toBe(0);
    // The Temporal CLI of the admin-tools image at the server version compose runs.
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { image?: string }>;
    };
    expect(c.image).toBe(compose.services['temporal-setup']!.image);
    // Before install the chart's service account does not exist yet: the Job does not name one.
    expect(podTemplateOf(job).spec.serviceAccountName).toBeUndefined();
    expect(podTemplateOf(job).spec.restartPolicy).toBe('Never');
  });

  it('connects as the worker does (address, namespace, TLS, API key)', () => {
    for (const name of ['default', 'production', 'keda-mtls', 'worker-controller-mtls']) {
      const objects = objectsOf(name);
      const job = envOf(containerOf(podTemplateOf(one(objects, 'Job'))));
      const receiver = envOf(containerOf(podTemplateOf(one(objects, 'Deployment', '-callbacks'))));
      const temporal = (env: Record<string, string>) =>
        Object.fromEntries(
          Object.entries(env).filter(([k]) => k.startsWith('TEMPORAL_') && k !== 'TEMPORAL_TASK_QUEUE'),
        );
      expect(temporal(job), name).toEqual(temporal(receiver));
      expect(Object.keys(temporal(job)).length).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('the callback receiver behind an Ingress', () => {
  it('exposes only /callbacks/ over TLS, at the public address the worker signs URLs for', () => {
    const objects = objectsOf('production');
    const ingress = one(objects, 'Ingress', '-callbacks');
    const service = one(objects, 'Service', '-callbacks');
    expect(ingress.spec.tls).toEqual([{ hosts: ['callbacks.example.com'], secretName: 'callbacks-example-com-tls' }]);
    expect(ingress.spec.rules).toEqual([
      {
        host: 'callbacks.example.com',
        http: {
          paths: [
            {
              path: '/callbacks/',
              pathType: 'Prefix',
              backend: { service: { name: service.metadata.name, port: { name: 'http' } } },
            },
          ],
        },
      },
    ]);
    const worker = envOf(containerOf(workerPods(objects).template));
    const receiver = envOf(containerOf(podTemplateOf(one(objects, 'Deployment', '-callbacks'))));
    expect(worker.CALLBACK_PUBLIC_URL).toBe('https://callbacks.example.com');
    expect(receiver.CALLBACK_PUBLIC_URL).toBe(worker.CALLBACK_PUBLIC_URL);
    // The Service reaches the receiver's port, on its pods.
    expect(service.spec.ports).toEqual([{ name: 'http', port: 8787, targetPort: 'http', protocol: 'TCP' }]);
    expect(
      matches(service.spec.selector, podTemplateOf(one(objects, 'Deployment', '-callbacks')).metadata.labels),
    ).toBe(true);
    // The codec server: only /encode and /decode.
    const codec = one(objects, 'Ingress', '-codec');
    expect(
      codec.spec.rules[0].http.paths.map((p: { path: string; pathType: string }) => `${p.pathType} ${p.path}`),
    ).toEqual(['Exact /encode', 'Exact /decode']);
  });
});

describe('the Worker Controller', () => {
  it('leaves to the controller the variables it injects, and the worker then runs as one version', () => {
    for (const name of ['worker-controller', 'worker-controller-mtls', 'worker-controller-legacy']) {
      const objects = objectsOf(name);
      const wd = objects.find((o) => o.kind.endsWith('WorkerDeployment'))!;
      const own = containerOf(podTemplateOf(wd)).env!.map((e) => e.name);
      for (const v of [
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'TEMPORAL_DEPLOYMENT_NAME',
        'TEMPORAL_WORKER_BUILD_ID',
        'TEMPORAL_API_KEY',
      ])
        expect(own, `${name}: ${v} is the controller's`).not.toContain(v);
      const { template } = workerPods(objects, 'b1');
      const c = containerOf(template);
      const names = c.env!.map((e) => e.name);
      expect(names.length, `${name}: no variable twice once injected`).toBe(new Set(names).size);
      const volumes = (template.spec.volumes as { name: string }[]).map((v) => v.name);
      expect(volumes.length, `${name}: no volume twice`).toBe(new Set(volumes).size);
      const mounts = c.volumeMounts!.map((m) => m.mountPath);
      expect(mounts.length).toBe(new Set(mounts).size);
      expect(envOf(c)).toMatchObject({
        TEMPORAL_DEPLOYMENT_NAME: `${NAMESPACE}/${wd.metadata.name}`,
        TEMPORAL_WORKER_BUILD_ID: 'b1',
      });
    }
    // Before 1.7 the connection has no tls.serverName: the chart gives it to the worker.
    const legacy = objectsOf('worker-controller-legacy');
    expect(one(legacy, 'TemporalConnection').spec).toEqual({ hostPort: 'temporal.example.com:7233' });
    expect(envOf(containerOf(workerPods(legacy).template))).toMatchObject({
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.example.com',
    });
    // 1.7 and later: the Connection carries it, and the controller injects it.
    const current = objectsOf('worker-controller');
    expect(one(current, 'Connection').spec.tls).toEqual({ serverName: 'my-namespace.a1b2c.tmprl.cloud' });
    expect(containerOf(podTemplateOf(one(current, 'WorkerDeployment'))).env!.map((e) => e.name)).not.toContain(
      'TEMPORAL_TLS_SERVER_NAME',
    );
  });

  it('rolls out progressively by default, keeps drained versions for a rollback, and can pin the build ID', () => {
    const wd = one(objectsOf('worker-controller'), 'WorkerDeployment');
    expect(wd.spec.rollout.strategy).toBe('Progressive');
    expect(wd.spec.rollout.steps.map((s: { rampPercentage: number }) => s.rampPercentage)).toEqual([10, 50]);
    // The controller rolls back at once to a version current within the last hour.
    expect(wd.spec.sunset).toEqual({ scaledownDelay: '1h', deleteDelay: '24h' });
    expect(wd.spec.workerOptions).toEqual({
      connectionRef: { name: 'rv-review-video' },
      temporalNamespace: 'my-namespace.a1b2c',
    });
    const pinned = one(objectsOf('worker-controller-mtls'), 'WorkerDeployment');
    expect(pinned.spec.workerOptions.unsafeCustomBuildID).toBe('2f1c9ab');
    expect(pinned.spec.rollout).toEqual({ strategy: 'AllAtOnce' });
    expect(one(objectsOf('worker-controller-mtls'), 'Connection').spec).toEqual({
      hostPort: 'temporal-frontend.temporal.svc.cluster.local:7233',
      mutualTLSSecretRef: { name: 'temporal-client-tls' },
    });
  });
});

describe('values the chart refuses, saying why', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'a memory limit under the worker’s needs',
      ['--set', 'worker.resources.limits.memory=300Mi'],
      /WORKER_MEMORY_BUDGET_MIB of 236, under the 332 MiB/,
    ],
    ['a memory limit in another unit', ['--set', 'worker.resources.limits.memory=512M'], /must be written in Mi or Gi/],
    [
      'a grace period under the worker’s shutdown',
      ['--set', 'worker.terminationGracePeriodSeconds=15'],
      /terminationGracePeriodSeconds/,
    ],
    [
      'a drain longer than the receiver’s grace period',
      ['--set', 'callbacks.drainDelayMs=30000'],
      /must cover the drain/,
    ],
    ['an Ingress without TLS', ['--set', 'callbacks.ingress.enabled=true'], /signed callback URLs in plain HTTP/],
    [
      'versioning without the Worker Controller',
      ['--set', 'config.TEMPORAL_VERSIONING_BEHAVIOR=PINNED'],
      /needs versioned workers/,
    ],
    [
      'a client certificate and an API key',
      ['--set', 'temporal.apiKey.enabled=true', '--set', 'temporal.tls.clientCertSecret=x'],
      /not both/,
    ],
    [
      'KEDA with a controller before 1.8',
      [
        '--set',
        'workerController.enabled=true',
        '--set',
        'workerController.kind=TemporalWorkerDeployment',
        '--set',
        'keda.enabled=true',
      ],
      /Worker Controller 1\.8 or later/,
    ],
    [
      'a Progressive rollout without steps',
      ['--set', 'workerController.enabled=true', '--set', 'workerController.rollout.steps=null'],
      /needs at least one step/,
    ],
    ['no Secret for the secrets', ['--set', 'secrets.existingSecret='], /VIDEO_API_KEY comes from a Secret/],
    [
      'a webhook receiver without its signing keys',
      ['--set', 'config.NOTIFY_URL=https://hooks.example.com'],
      /NOTIFY_URL needs notify\.enabled/,
    ],
    ['a misspelt value', ['--set', 'worker.replica=3'], /additional properties 'replica' not allowed/],
    ['an address without a port', ['--set', 'temporal.address=temporal'], /temporal\/address/],
  ];
  it.each(cases)('%s', (_what, args, message) => {
    const r = helm([...templateArgs(VARIANTS[0]!), ...args]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(message);
  });
});
