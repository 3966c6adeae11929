/**
 * Fault injection on PostgreSQL and Redis (issue 16, item 7): two scheduler processes (replicas
 * sharing the work; jobs are submitted to both in turn) and inference node processes on a
 * PostgreSQL and a Redis (without persistence) this test starts on free ports,
 * so restarting them disturbs no other test. Faults: Redis stopped and restarted (its queue is
 * gone) with jobs submitted before, during and after; PostgreSQL restarted likewise; an inference
 * node killed with SIGKILL mid-batch; a slow node (every packet to and from it delayed by a proxy);
 * DATA_DIR, where the audio is stored, full (a small tmpfs mounted on it: needs root, without it
 * that test is skipped and says so).
 * After each, every job submitted reaches a final state with exactly one completion, failures and
 * refusals carry a catalogue code, and the platform recovers by itself. The figures are printed
 * ("fault figures: ...") and recorded in docs/reliability.md.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JobState, type SchedulerClient } from '@tts/proto/scheduler';
import { callUnary, closeAllClients, fromServiceError, schedulerClient } from '@tts/common';
import { jobSpec, startNodeProcess, startSchedulerProcess, submitJob, waitUntil, type ServiceProcess } from '@tts/scheduler/testing';
import { fillOrSkip, mountTmpfs, unmount } from './support/disk.js';
import { FaultLedger, type JobOutcome } from './support/faults.js';
import { freePort } from './support/processes.js';
import { startPrivatePostgres, startPrivateRedis, type PrivateServer } from './support/servers.js';

const TEXT = 'A fault must never lose a job. ';
/** Generous: a loaded two-core machine runs this beside other tests. */
const SETTLE_MS = 120_000;

const STATE_NAMES: Partial<Record<JobState, string>> = {
  [JobState.JOB_STATE_QUEUED]: 'queued',
  [JobState.JOB_STATE_RUNNING]: 'running',
  [JobState.JOB_STATE_RETRYING]: 'retrying',
  [JobState.JOB_STATE_COMPLETED]: 'completed',
  [JobState.JOB_STATE_FAILED]: 'failed',
  [JobState.JOB_STATE_CANCELLED]: 'cancelled',
};

/** A job's outcome as the scheduler's ListJobEvents tells it. */
function outcomeOf(client: SchedulerClient): (jobId: string) => Promise<JobOutcome> {
  return async (jobId) => {
    const page = await callUnary(client.listJobEvents.bind(client), { jobId, afterEventId: 0, limit: 500 }, { timeoutMs: 5000 });
    // The state is read after the events: final only once every event up to it was read.
    const seenAll = (page.events.at(-1)?.eventId ?? 0) >= page.lastEventId;
    return {
      state: seenAll ? (STATE_NAMES[page.state] ?? 'unknown') : 'unread',
      completedEvents: page.events.filter((e) => e.kind === 'completed').length,
      errorCode: page.events.findLast((e) => e.kind === 'failed')?.errorCode,
      retried: page.events.some((e) => e.kind === 'retrying'),
    };
  };
}

/** A TCP proxy to `target` that delays every chunk by `delayMs` each way (order kept). */
async function delayingProxy(target: number, delayMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const relay = (from: Socket, to: Socket): void => {
    from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), delayMs));
    from.on('close', () => setTimeout(() => to.destroy(), delayMs));
    from.on('error', () => to.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    sockets.add(client).add(upstream);
    relay(client, upstream);
    relay(upstream, client);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The catalogue code a server stream ends with ('' when it ends without an error). */
function streamErrorCode(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    stream.on('data', () => undefined);
    stream.on('error', (err) => resolve(fromServiceError(err).code));
    stream.on('end', () => resolve(''));
  });
}

describe('faults on PostgreSQL and Redis', { timeout: 600_000 }, () => {
  let pg: PrivateServer;
  let redis: PrivateServer;
  let dataDir: string;
  let mounted = false;
  const schedulers: ServiceProcess[] = [];
  /** Clients of scheduler A (the nodes register with it) and B (it polls the nodes). */
  const clients: SchedulerClient[] = [];
  let client: SchedulerClient;
  let address: string;
  const nodes: ServiceProcess[] = [];
  const nodePorts: number[] = [];

  const stats = (c = client) => callUnary(c.getQueueStats.bind(c), {}, { timeoutMs: 5000 });
  const submit = (ledger: FaultLedger, i: number, tier = 'pro') =>
    ledger.submit(async () => (await submitJob(clients[i % 2]!, jobSpec(`${TEXT.repeat(3)} ${ledger.fault} ${i}.`), { tier })).jobId, (err) => fromServiceError(err).code);
  const startNode = (i: number) => startNodeProcess({ nodeId: `faults-node-${i}`, schedulerAddress: address, env: { NODE_GRPC_PORT: String(nodePorts[i]) } });

  before(async () => {
    [pg, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    dataDir = await mkdtemp(join(tmpdir(), 'tts-faults-'));
    mounted = mountTmpfs(dataDir, 256);
    const env = (id: string): Record<string, string> => ({
      SCHEDULER_DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      TTS_KV_PREFIX: 'faults',
      DATA_DIR: dataDir,
      SCHEDULER_ID: id,
      SCHEDULER_QUEUE_POLL_MS: '100',
      // The orphan sweep (and the queue's reconciliation) run every lease.
      SCHEDULER_QUEUE_LEASE_MS: '2000',
      // Node loss is tested on purpose below: a loaded machine must not make live nodes look lost.
      SCHEDULER_NODE_TIMEOUT_MS: '5000',
    });
    const ports = [await freePort(), await freePort()];
    nodePorts.push(await freePort(), await freePort());
    address = `127.0.0.1:${ports[0]}`;
    schedulers.push(await startSchedulerProcess(ports[0]!, env('scheduler-faults-a')));
    nodes.push(...(await Promise.all([0, 1].map(startNode))));
    schedulers.push(await startSchedulerProcess(ports[1]!, { ...env('scheduler-faults-b'), SCHEDULER_STATIC_NODES: nodePorts.map((p) => `127.0.0.1:${p}`).join(',') }));
    clients.push(...ports.map((p) => schedulerClient(`127.0.0.1:${p}`)));
    client = clients[0]!;
    for (const c of clients) await waitUntil(async () => (await stats(c)).nodesReady === 2, 20_000, 'nodes ready');
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await Promise.all(schedulers.map((s) => s.stop()));
    closeAllClients();
    await Promise.all([pg?.destroy(), redis?.destroy()]);
    if (mounted) unmount(dataDir);
    await rm(dataDir, { recursive: true, force: true });
  });

  test('Redis stopped and restarted without persistence: jobs before, during and after all complete', async () => {
    const ledger = new FaultLedger('redis restart');
    for (let i = 0; i < 30; i++) await submit(ledger, i, i % 2 ? 'free' : 'pro');
    assert.ok((await stats()).queued >= 10, 'jobs wait in the queue when Redis goes away');
    await redis.stop();
    // During the outage: the job is recorded in PostgreSQL and queued once Redis answers again.
    for (let i = 30; i < 35; i++) await submit(ledger, i);
    await redis.start();
    for (let i = 35; i < 45; i++) await submit(ledger, i);
    const figures = await ledger.settle(outcomeOf(client), SETTLE_MS);
    assert.equal(figures.completed, figures.submitted, `every job completes: ${JSON.stringify(figures)}`);
    assert.equal(figures.submitted + Object.values(figures.refused).reduce((a, b) => a + b, 0), 45);
    assert.equal((await stats()).queued, 0);
  });

  test('PostgreSQL restarted: jobs before and after complete, a submission during the restart is refused with a code or completes', async () => {
    const ledger = new FaultLedger('postgres restart');
    for (let i = 0; i < 12; i++) await submit(ledger, i);
    await pg.stop();
    for (let i = 12; i < 15; i++) await submit(ledger, i);
    // The streaming job calls answer the outage with the store's code, like the unary ones (not INTERNAL).
    const jobId = ledger.jobIds[0]!;
    assert.equal(await streamErrorCode(client.readJobAudio({ jobId })), 'JOB_STORE_UNAVAILABLE', 'ReadJobAudio while PostgreSQL is down');
    assert.equal(await streamErrorCode(client.watchJob({ jobId, afterEventId: 0 })), 'JOB_STORE_UNAVAILABLE', 'WatchJob while PostgreSQL is down');
    await pg.start();
    // Recovery by itself: submissions succeed again within a few seconds (the pool reconnects).
    await waitUntil(async () => (await submit(ledger, 100)) !== undefined, 30_000, 'a submission accepted after the restart');
    for (let i = 15; i < 23; i++) await submit(ledger, i);
    const figures = await ledger.settle(outcomeOf(client), SETTLE_MS);
    assert.equal(figures.completed, figures.submitted, `every job completes: ${JSON.stringify(figures)}`);
    assert.ok(figures.submitted >= 21, 'the jobs submitted while PostgreSQL was up were accepted');
  });

  test('kill -9 of an inference node mid-batch: its jobs move to the other node; a restarted node serves again', async () => {
    const ledger = new FaultLedger('node SIGKILL');
    for (let i = 0; i < 14; i++) await submit(ledger, i);
    await waitUntil(async () => (await stats()).running >= 2, 20_000, 'both nodes busy');
    const victim = nodes.shift()!;
    victim.kill('SIGKILL');
    await victim.exited;
    for (let i = 14; i < 18; i++) await submit(ledger, i);
    const figures = await ledger.settle(outcomeOf(client), SETTLE_MS);
    // A job fails only after its attempts ran out, and then with JOB_NODE_LOST.
    assert.deepEqual(Object.keys(figures.failed).filter((c) => c !== 'JOB_NODE_LOST'), []);
    assert.ok(figures.completed >= figures.submitted - 1, `nearly every job completes: ${JSON.stringify(figures)}`);
    assert.ok(figures.retried >= 1, 'the job running on the killed node was retried');
    // The first call refused by the dead node stops new work going there (no wait for its heartbeat
    // time-out): few jobs need a second attempt.
    assert.ok(figures.retried <= Math.ceil(figures.submitted / 3), `jobs retried: ${figures.retried}`);
    nodes.unshift(await startNode(0));
    for (const c of clients) await waitUntil(async () => (await stats(c)).nodesReady === 2, 20_000, 'the restarted node ready');
  });

  test('a slow node (every packet delayed): jobs complete on the fast and the slow node, none twice', async () => {
    const nodePort = await freePort();
    const proxy = await delayingProxy(nodePort, 150);
    const slow = await startNodeProcess({
      nodeId: 'faults-node-slow',
      schedulerAddress: address,
      env: { NODE_GRPC_PORT: String(nodePort), NODE_ADVERTISE_ADDRESS: `127.0.0.1:${proxy.port}` },
    });
    try {
      await waitUntil(async () => (await stats()).nodesReady === 3, 20_000, 'the slow node ready');
      const ledger = new FaultLedger('slow node');
      for (let i = 0; i < 15; i++) await submit(ledger, i);
      const figures = await ledger.settle(outcomeOf(client), SETTLE_MS);
      assert.equal(figures.completed, figures.submitted, `every job completes: ${JSON.stringify(figures)}`);
    } finally {
      await slow.stop();
      await proxy.close();
    }
  });

  test('DATA_DIR full: jobs accepted meanwhile fail with JOB_STORAGE_FULL; once space is freed new jobs complete', async (t) => {
    const filler = fillOrSkip(t, dataDir, mounted);
    if (filler === undefined) return;
    const full = new FaultLedger('DATA_DIR full');
    for (let i = 0; i < 6; i++) await submit(full, i);
    const during = await full.settle(outcomeOf(client), SETTLE_MS);
    assert.deepEqual(Object.keys(during.failed).filter((c) => c !== 'JOB_STORAGE_FULL'), [], `failures name the full disk: ${JSON.stringify(during)}`);
    await rm(filler);
    const freed = new FaultLedger('DATA_DIR freed');
    for (let i = 0; i < 6; i++) await submit(freed, i);
    const figures = await freed.settle(outcomeOf(client), SETTLE_MS);
    assert.equal(figures.completed, figures.submitted, `every job completes once space is freed: ${JSON.stringify(figures)}`);
  });
});
