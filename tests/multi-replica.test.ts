/**
 * The platform as replicas on loopback (issue 15, item 5): two facades, two schedulers and three
 * inference nodes as processes, on PostgreSQL and Redis. A scheduler that starts while another
 * runs jobs leaves those jobs alone; when one is killed with SIGKILL during a stream of jobs
 * submitted through both facades, the other takes its work over once its lease lapses, and every
 * job completes exactly once (one completed event, one result, no job on two nodes at once) while
 * synchronous synthesis keeps flowing through both facades; then the killed one restarts and the
 * other is killed. Each facade reaches the schedulers as one gRPC target with both addresses (as a
 * Service's endpoints), and finds the nodes through them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Job, SchedulerClient } from '@tts/proto/scheduler';
import { callUnary, closeAllClients, schedulerClient } from '@tts/common';
import { openWorkQueue } from '@tts/common/kv';
import {
  expectCompletedOnce,
  jobSpec,
  openJobStorage,
  spawnService,
  startNodeProcess,
  startSchedulerProcess,
  submitJob,
  waitUntil,
  type JobStorage,
  type ServiceProcess,
} from '@tts/scheduler/testing';
import { freePort } from './support/processes.js';

const TEXT = 'Two schedulers share the queue and never run one job twice. ';
/** Lease of a scheduler (and of its queue entries): a killed one's work moves after about this long. */
const LEASE_MS = 2000;

describe('two facades, two schedulers, three nodes', () => {
  let storage: JobStorage;
  let dataDir: string;
  const ports = { a: 0, b: 0 };
  const schedulers: Partial<Record<'a' | 'b', ServiceProcess>> = {};
  const clients: Partial<Record<'a' | 'b', SchedulerClient>> = {};
  const nodes: ServiceProcess[] = [];
  let nodeAddresses: string[];
  const facades: ServiceProcess[] = [];
  const facadeUrls: string[] = [];
  const adminKey = `ha-admin-${randomBytes(12).toString('hex')}`;
  let apiKey: string;

  const envOf = (id: 'a' | 'b'): Record<string, string> => ({
    ...storage.env,
    DATA_DIR: dataDir,
    SCHEDULER_ID: `scheduler-ha-${id}`,
    SCHEDULER_QUEUE_POLL_MS: '100',
    SCHEDULER_QUEUE_LEASE_MS: String(LEASE_MS),
    // Node loss is not what this test is about: a loaded machine must not make nodes look lost.
    SCHEDULER_NODE_TIMEOUT_MS: '5000',
    SCHEDULER_STATIC_NODES: nodeAddresses.join(','),
  });
  const startScheduler = async (id: 'a' | 'b'): Promise<void> => {
    schedulers[id] = await startSchedulerProcess(ports[id], envOf(id));
    clients[id] = schedulerClient(`127.0.0.1:${ports[id]}`);
    await waitUntil(async () => (await callUnary(clients[id]!.getQueueStats.bind(clients[id]!), {})).nodesReady === nodeAddresses.length, 10_000, `nodes ready on ${id}`);
  };

  before(async () => {
    storage = await openJobStorage();
    dataDir = await mkdtemp(join(tmpdir(), 'tts-jobs-ha-'));
    ports.a = await freePort();
    ports.b = await freePort();
    const nodePorts = [await freePort(), await freePort(), await freePort()];
    nodeAddresses = nodePorts.map((p) => `127.0.0.1:${p}`);
    // Both schedulers poll the nodes (as schedulers discovering pods do); the nodes also announce
    // themselves to A. One flite slot per node.
    const startingA = startScheduler('a');
    nodes.push(
      ...(await Promise.all(
        nodePorts.map((port, i) => startNodeProcess({ nodeId: `ha-node-${i}`, schedulerAddress: `127.0.0.1:${ports.a}`, env: { NODE_GRPC_PORT: String(port) } })),
      )),
    );
    await startingA;
    // Facade 1 prefers scheduler A, facade 2 scheduler B (down until the first test starts it).
    for (const order of [['a', 'b'], ['b', 'a']] as const) {
      const port = await freePort();
      facades.push(
        await spawnService(
          'facade/src/main',
          {
            HOST: '127.0.0.1',
            PORT: String(port),
            SCHEDULER_ADDRESS: `ipv4:${order.map((id) => `127.0.0.1:${ports[id]}`).join(',')}`,
            DATABASE_URL: storage.env['SCHEDULER_DATABASE_URL']!,
            TTS_DB_SCHEMA: storage.env['SCHEDULER_DB_SCHEMA']!,
            REDIS_URL: storage.env['REDIS_URL']!,
            TTS_KV_PREFIX: storage.env['TTS_KV_PREFIX']!,
            TTS_ADMIN_KEY: adminKey,
            DATA_DIR: dataDir,
            TTS_DEFAULT_VOICE: 'flite:slt',
            TTS_MODEL_HUB_URL: 'http://127.0.0.1:9',
            METRICS_PORT: '0',
          },
          '"facade listening"',
        ),
      );
      facadeUrls.push(`http://127.0.0.1:${port}`);
    }
    const created = await fetch(`${facadeUrls[0]}/api/auth/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-key': adminKey },
      body: JSON.stringify({ name: 'replicas', tier: 'enterprise', rate_limit_per_minute: 100_000 }),
    });
    assert.equal(created.status, 201);
    apiKey = ((await created.json()) as { api_key: string }).api_key;
  });

  after(async () => {
    await Promise.all(facades.map((f) => f.stop()));
    await Promise.all(Object.values(schedulers).map((s) => s?.stop()));
    await Promise.all(nodes.map((n) => n.stop()));
    closeAllClients();
    await storage?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a scheduler starting while another runs jobs leaves those jobs alone, and both dispatch', async () => {
    const jobs: Job[] = [];
    for (let i = 0; i < 9; i++) jobs.push(await submitJob(clients.a!, jobSpec(`${TEXT.repeat(5)} First ${i}.`), { tier: 'pro' }));
    await waitUntil(async () => (await callUnary(clients.a!.getQueueStats.bind(clients.a!), {})).running >= 2, 10_000, 'jobs running on A');
    await startScheduler('b');
    for (let i = 0; i < 6; i++) jobs.push(await submitJob(clients.b!, jobSpec(`${TEXT.repeat(5)} Second ${i}.`), { tier: 'free' }));
    const all = await expectCompletedOnce(clients.b!, jobs, 60_000);
    // A busy machine may still delay a node's status past its time-out (a node-lost retry), but no
    // job may be taken from the live scheduler running it.
    const takenOver = all.filter((events) => events.some((e) => e.kind === 'retrying' && /scheduler/i.test(e.errorMessage)));
    assert.deepEqual(takenOver.map((events) => events.map((e) => `${e.kind}:${e.errorCode}:${e.nodeId}`)), [], 'no job was requeued from a live scheduler');
  });

  /** A call as a client makes it: retried on 503 and on a dropped connection, at most 20 times. */
  const call = async (url: string, path: string, body: unknown): Promise<Response> => {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) }).catch(() => undefined);
      if (res !== undefined && res.status !== 503) return res;
      await res?.arrayBuffer();
      if (attempt >= 20) throw new Error(`${path} on ${url}: still ${res?.status ?? 'no answer'} after ${attempt} attempts`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  test('SIGKILL of one scheduler during a stream of jobs through both facades: every job completes exactly once, synchronous synthesis keeps flowing', async (t) => {
    const jobIds: string[] = [];
    const sync = facadeUrls.map(() => ({ ok: 0, okAfterKill: 0, other: [] as number[] }));
    let killed = false;
    let streaming = true;
    const syncTraffic = facadeUrls.map(async (url, i) => {
      while (streaming) {
        const res = await fetch(`${url}/api/tts`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ text: 'Hello world.', voice: 'flite:slt' }) });
        const audio = Buffer.from(await res.arrayBuffer());
        if (res.status === 200 && audio.toString('ascii', 8, 12) === 'WAVE') {
          sync[i]!.ok++;
          if (killed) sync[i]!.okAfterKill++;
        } else sync[i]!.other.push(res.status);
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    for (let i = 0; i < 24; i++) {
      if (i === 8) {
        schedulers.a!.kill('SIGKILL');
        await schedulers.a!.exited;
        schedulers.a = undefined;
        killed = true;
      }
      const res = await call(facadeUrls[i % 2]!, '/api/jobs/tts', { text: `${TEXT.repeat(4)} Stream ${i}.`, voice: 'flite:slt' });
      assert.equal(res.status, 202, `job ${i}`);
      jobIds.push(((await res.json()) as { job_id: string }).job_id);
      await new Promise((r) => setTimeout(r, 60));
    }
    const all = await expectCompletedOnce(clients.b!, jobIds.map((jobId) => ({ jobId })), 90_000);
    for (const events of all.filter((e) => e.some((x) => x.kind === 'retrying'))) {
      assert.equal(events.find((e) => e.kind === 'retrying')?.errorCode, 'JOB_NODE_LOST');
    }
    await new Promise((r) => setTimeout(r, 1000));
    streaming = false;
    await Promise.all(syncTraffic);
    t.diagnostic(`synchronous syntheses per facade: ${JSON.stringify(sync)}`);
    for (const [i, counts] of sync.entries()) {
      assert.ok(counts.okAfterKill >= 5, `facade ${i + 1}: ${counts.okAfterKill} syntheses after the kill (${JSON.stringify(counts)})`);
      assert.ok(counts.other.every((status) => status === 503), `facade ${i + 1}: only 503 (retryable) besides 200: ${counts.other.join(',')}`);
    }
    // Both facades serve the audio of a job, whichever scheduler ran it.
    for (const url of facadeUrls) {
      const audio = await fetch(`${url}/api/jobs/${jobIds[0]}/audio`, { headers: { 'x-api-key': apiKey } });
      assert.equal(audio.status, 200);
      assert.equal(Buffer.from(await audio.arrayBuffer()).toString('ascii', 8, 12), 'WAVE');
    }
    const queue = await openWorkQueue(storage.kv, { name: 'jobs' });
    await waitUntil(async () => (await queue.stats()).pending === 0, 10_000, 'no pending entries');
    assert.deepEqual(await queue.stats(), { waiting: 0, pending: 0 });
  });

  test('the killed scheduler restarts and the other is killed: the jobs still complete once', async () => {
    await startScheduler('a');
    const jobs: Job[] = [];
    for (let i = 0; i < 10; i++) jobs.push(await submitJob(clients.b!, jobSpec(`${TEXT.repeat(5)} Third ${i}.`), { tier: 'enterprise' }));
    await waitUntil(async () => (await callUnary(clients.b!.getQueueStats.bind(clients.b!), {})).running >= 1, 10_000, 'jobs running on B');
    schedulers.b!.kill('SIGKILL');
    await schedulers.b!.exited;
    schedulers.b = undefined;
    await expectCompletedOnce(clients.a!, jobs, 60_000);
  });
});
