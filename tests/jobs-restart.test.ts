/**
 * A scheduler restart loses no job: a real scheduler process (PostgreSQL + Redis Streams) is killed
 * with SIGKILL while jobs run and wait in the queue; a new scheduler process on the same address
 * resumes every unfinished job, and each completes exactly once. A graceful stop (SIGTERM) is
 * resumed the same way.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JobState, type Job, type SchedulerClient } from '@tts/proto/scheduler';
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

const TEXT = 'Every queued job must survive the restart of its scheduler. ';

describe('jobs across scheduler restarts', () => {
  let storage: JobStorage;
  let dataDir: string;
  let port: number;
  let env: Record<string, string>;
  let scheduler: ServiceProcess | undefined;
  let client: SchedulerClient;
  const nodes: ServiceProcess[] = [];

  before(async () => {
    storage = await openJobStorage();
    dataDir = await mkdtemp(join(tmpdir(), 'tts-jobs-'));
    port = await freePort();
    env = { ...storage.env, DATA_DIR: dataDir, SCHEDULER_ID: 'scheduler-restart-test', SCHEDULER_QUEUE_POLL_MS: '100' };
    scheduler = await startSchedulerProcess(port, env);
    const address = `127.0.0.1:${port}`;
    client = schedulerClient(address);
    // One flite slot per node: most jobs wait in the queue.
    nodes.push(...(await Promise.all(['restart-node-a', 'restart-node-b'].map((nodeId) => startNodeProcess({ nodeId, schedulerAddress: address })))));
    await waitUntil(async () => (await callUnary(client.getQueueStats.bind(client), {})).nodesReady === 2, 10_000, 'nodes ready');
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await scheduler?.stop();
    closeAllClients();
    await storage?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const restart = async (signal: NodeJS.Signals): Promise<void> => {
    scheduler!.kill(signal);
    await scheduler!.exited;
    scheduler = await startSchedulerProcess(port, env);
  };

  test('SIGKILL with jobs running and queued: the new scheduler completes every job exactly once', async () => {
    const jobs: Job[] = [];
    for (let i = 0; i < 16; i++) jobs.push(await submitJob(client, jobSpec(`${TEXT.repeat(6)} Job ${i}.`), { tier: i % 2 ? 'free' : 'pro' }));
    await waitUntil(async () => (await callUnary(client.getQueueStats.bind(client), {})).running === 2, 10_000, 'two jobs running');
    const before = await callUnary(client.getQueueStats.bind(client), {});
    assert.ok(before.queued >= 10, `queued before the restart: ${before.queued}`);

    await restart('SIGKILL');

    const all = await expectCompletedOnce(client, jobs);
    const interrupted = all.filter((events) => events.some((e) => e.kind === 'retrying'));
    assert.ok(interrupted.length >= 1 && interrupted.length <= 2, `jobs interrupted while running: ${interrupted.length}`);
    for (const events of interrupted) assert.equal(events.find((e) => e.kind === 'retrying')?.errorCode, 'JOB_NODE_LOST');
    const hashes = new Set<string>();
    for (const j of jobs) {
      const { job } = await callUnary(client.getJob.bind(client), { jobId: j.jobId });
      assert.equal(job?.state, JobState.JOB_STATE_COMPLETED);
      hashes.add(job!.result!.sha256);
    }
    assert.equal(hashes.size, jobs.length, 'one result per job');
    const { audio } = await readJobAudio(client, jobs[0]!.jobId);
    assert.equal(audio.toString('ascii', 8, 12), 'WAVE');
    // Nothing is left behind in the Redis stream: every entry was acknowledged once.
    const queue = await openWorkQueue(storage.kv, { name: 'jobs' });
    await waitUntil(async () => (await queue.stats()).pending === 0, 5000, 'no pending entries');
    assert.deepEqual(await queue.stats(), { waiting: 0, pending: 0 });
  });

  test('a graceful stop (SIGTERM) with queued jobs resumes them after the restart', async () => {
    const jobs: Job[] = [];
    for (let i = 0; i < 8; i++) jobs.push(await submitJob(client, jobSpec(`${TEXT} Graceful ${i}.`), { tier: 'enterprise' }));
    await restart('SIGTERM');
    await expectCompletedOnce(client, jobs);
  });
});
