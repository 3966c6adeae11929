/**
 * Kubernetes node discovery against a local fake Kubernetes API server: the scheduler lists and
 * watches the pods of the inference-node deployment by label; a pod that becomes ready (pointing at
 * a real node on loopback) becomes a node that takes jobs, a deleted pod is forgotten.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SchedulerClient } from '@tts/proto/scheduler';
import { callUnary, closeAllClients, schedulerClient, setLogSink } from '@tts/common';
import { start as startNode, type RunningNode } from '@tts/inference-node';
import { start, type RunningScheduler } from '@tts/scheduler';
import { jobSpec, openJobStorage, pollJobEvents, submitJob, waitUntil, type JobStorage } from '@tts/scheduler/testing';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

const NAMESPACE = 'tts';
const SELECTOR = 'app.kubernetes.io/component=inference-node';

interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string; resourceVersion: string; labels: Record<string, string>; uid: string };
  status: { phase: string; podIP?: string; conditions: { type: string; status: string }[] };
}

/** A fake of the two pod endpoints the informer uses: list, and watch as JSON lines. */
class FakeKubernetes {
  readonly requests: URL[] = [];
  private readonly pods = new Map<string, Pod>();
  private readonly watchers = new Set<ServerResponse>();
  private version = 100;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.end();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Adds or changes a pod and tells the watchers. */
  put(name: string, ready: boolean, ip?: string): void {
    const existed = this.pods.has(name);
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NAMESPACE, resourceVersion: String(++this.version), labels: { 'app.kubernetes.io/component': 'inference-node' }, uid: `uid-${name}` },
      status: {
        phase: ready ? 'Running' : 'Pending',
        ...(ip ? { podIP: ip } : {}),
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      },
    };
    this.pods.set(name, pod);
    this.emit(existed ? 'MODIFIED' : 'ADDED', pod);
  }

  /** Deletes a pod and tells the watchers. */
  delete(name: string): void {
    const pod = this.pods.get(name);
    if (!pod) return;
    this.pods.delete(name);
    this.emit('DELETED', { ...pod, metadata: { ...pod.metadata, resourceVersion: String(++this.version) } });
  }

  private emit(type: string, pod: Pod): void {
    for (const w of this.watchers) w.write(`${JSON.stringify({ type, object: pod })}\n`);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push(url);
    if (url.pathname !== `/api/v1/namespaces/${NAMESPACE}/pods` || url.searchParams.get('labelSelector') !== SELECTOR) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', code: 404 }));
      return;
    }
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      this.watchers.add(res);
      res.on('close', () => this.watchers.delete(res));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: String(this.version) }, items: [...this.pods.values()] }),
    );
  }
}

describe('kubernetes discovery (fake API server)', () => {
  const fake = new FakeKubernetes();
  let dir: string;
  let node: RunningNode;
  let storage: JobStorage;
  let scheduler: RunningScheduler;
  let client: SchedulerClient;

  const readyNodes = async (): Promise<string[]> =>
    (await callUnary(client.listNodes.bind(client), {})).nodes.filter((n) => n.healthy && n.status?.state === 2).map((n) => n.status!.nodeId);

  before(async () => {
    await fake.start();
    dir = await mkdtemp(join(tmpdir(), 'tts-k8s-'));
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: fake\n  cluster:\n    server: ${fake.url}\n    insecure-skip-tls-verify: true`,
        'users:',
        '- name: scheduler\n  user:\n    token: test-token',
        'contexts:',
        '- name: fake\n  context:\n    cluster: fake\n    user: scheduler',
        'current-context: fake',
        '',
      ].join('\n'),
    );
    // A real node on loopback that does not register itself: only the pod watch can find it.
    node = await startNode({ host: '127.0.0.1', port: 0, nodeId: 'pod-node-1', engines: ['flite'], fliteWorkers: 1, heartbeatMs: 200 });
    fake.put('inference-node-0', false);
    storage = await openJobStorage();
    scheduler = await start({
      host: '127.0.0.1',
      port: 0,
      heartbeatMs: 200,
      nodeTimeoutMs: 1500,
      staticNodes: [],
      discovery: 'kubernetes',
      kubeconfig,
      k8sNamespace: NAMESPACE,
      k8sLabelSelector: SELECTOR,
      k8sGrpcPort: node.port,
      dataDir: dir,
      database: storage.database,
      kv: storage.kv,
      schedulerId: 'scheduler-k8s-test',
    });
    client = schedulerClient(scheduler.address);
  });

  after(async () => {
    await scheduler?.stop(1000);
    await node?.stop(1000);
    await fake.stop();
    closeAllClients();
    await storage?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('lists and watches pods by label; a not-ready pod is no node', async () => {
    assert.ok(fake.requests.some((u) => u.searchParams.get('watch') !== 'true'), 'listed the pods');
    await waitUntil(() => fake.requests.some((u) => u.searchParams.get('watch') === 'true'), 5000, 'a watch');
    await new Promise((r) => setTimeout(r, 400));
    assert.deepEqual(await readyNodes(), []);
  });

  test('a pod that becomes ready is polled as a node and runs jobs', async () => {
    fake.put('inference-node-0', true, '127.0.0.1');
    await waitUntil(async () => (await readyNodes()).includes('pod-node-1'), 5000, 'the pod as a ready node');
    const [view] = (await callUnary(client.listNodes.bind(client), {})).nodes;
    assert.equal(view?.status?.address, `127.0.0.1:${node.port}`);
    const job = await submitJob(client, jobSpec('Discovered through the Kubernetes API.'));
    const events = await pollJobEvents(client, job.jobId, 15_000);
    assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'completed']);
    assert.equal(events[1]?.nodeId, 'pod-node-1');
  });

  test('a deleted pod is forgotten at once', async () => {
    fake.delete('inference-node-0');
    await waitUntil(async () => (await callUnary(client.listNodes.bind(client), {})).nodes.length === 0, 5000, 'the node to be forgotten');
    const stats = await callUnary(client.getQueueStats.bind(client), {});
    assert.equal(stats.nodesReady, 0);
  });
});
