/**
 * Two schedulers share one job store (PostgreSQL + Redis Streams) and the same nodes, as replicas
 * do: a scheduler that starts while another runs jobs leaves those jobs alone; when one is killed
 * with SIGKILL during a stream of jobs, the other takes its work over once its lease lapses, and
 * every job completes exactly once (one completed event, one result, no job on two nodes at once).
 */
import assert from 'node:assert/strict';
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
  readJobAudio,
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

describe('two schedulers on one job store', () => {
  let storage: JobStorage;
  let dataDir: string;
  const ports = { a: 0, b: 0 };
  const schedulers: Partial<Record<'a' | 'b', ServiceProcess>> = {};
  const clients: Partial<Record<'a' | 'b', SchedulerClient>> = {};
  const nodes: ServiceProcess[] = [];
  let nodeAddresses: string[];

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
  });

  after(async () => {
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

  test('SIGKILL of one scheduler during a stream of jobs: the other completes all of them exactly once', async () => {
    const jobs: Job[] = [];
    const submitting = (async () => {
      for (let i = 0; i < 24; i++) {
        const spec = jobSpec(`${TEXT.repeat(4)} Stream ${i}.`);
        const owner = { tier: i % 3 ? 'pro' : 'free' };
        // Half the stream goes to A while it lives; a submission A dies in the middle of goes to B.
        const viaA = i % 2 === 1 && schedulers.a !== undefined;
        jobs.push(viaA ? await submitJob(clients.a!, spec, owner).catch(() => submitJob(clients.b!, spec, owner)) : await submitJob(clients.b!, spec, owner));
        await new Promise((r) => setTimeout(r, 60));
      }
    })();
    await waitUntil(() => jobs.length >= 8, 20_000, 'jobs submitted');
    schedulers.a!.kill('SIGKILL');
    await schedulers.a!.exited;
    schedulers.a = undefined;
    await submitting;
    const all = await expectCompletedOnce(clients.b!, jobs, 60_000);
    for (const events of all.filter((e) => e.some((x) => x.kind === 'retrying'))) {
      assert.equal(events.find((e) => e.kind === 'retrying')?.errorCode, 'JOB_NODE_LOST');
    }
    const { audio } = await readJobAudio(clients.b!, jobs[0]!.jobId);
    assert.equal(audio.toString('ascii', 8, 12), 'WAVE');
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
