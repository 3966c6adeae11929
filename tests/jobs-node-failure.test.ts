/**
 * Jobs survive lost nodes: real node processes are killed with SIGKILL (the gRPC call breaks) or
 * frozen with SIGSTOP (heartbeats stop, the call hangs) while they hold a job; the job is re-queued
 * and completed on another node, and fails with JOB_NODE_LOST once its attempts are used up.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JobState, type JobEvent, type SchedulerClient } from '@tts/proto/scheduler';
import { callUnary, closeAllClients, schedulerClient, setLogSink } from '@tts/common';
import { start, type RunningScheduler } from '@tts/scheduler';
import {
  jobSpec,
  openJobStorage,
  pollJobEvents,
  readJobAudio,
  startNodeProcess,
  submitJob,
  waitUntil,
  type JobStorage,
  type ServiceProcess,
} from '@tts/scheduler/testing';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

/** About 2.4 s of flite work: long enough to be interrupted. */
const LONG_TEXT = 'The quick brown fox jumps over the lazy dog near the quiet river bank. '.repeat(40);

describe('jobs and lost nodes', () => {
  let storage: JobStorage;
  let dataDir: string;
  let scheduler: RunningScheduler;
  let client: SchedulerClient;
  const nodes = new Map<string, ServiceProcess>();
  let counter = 0;

  const addNodes = async (n: number): Promise<void> => {
    const started = await Promise.all(
      Array.from({ length: n }, async () => {
        const nodeId = `failover-node-${++counter}`;
        return [nodeId, await startNodeProcess({ nodeId, schedulerAddress: scheduler.address })] as const;
      }),
    );
    for (const [id, p] of started) nodes.set(id, p);
    await waitUntil(() => scheduler.context.membership.ready().length === nodes.size, 10_000, 'nodes ready');
  };

  /** Polls the job and applies `onRunning` to the node process of each running event. */
  const followJob = (jobId: string, onRunning: (node: ServiceProcess, e: JobEvent) => void): Promise<JobEvent[]> =>
    pollJobEvents(client, jobId, 40_000, (e) => {
      if (e.kind !== 'running') return;
      const node = nodes.get(e.nodeId);
      assert.ok(node, `running on a known node (${e.nodeId})`);
      onRunning(node, e);
    });

  const dropNode = (node: ServiceProcess): void => {
    for (const [id, p] of nodes) if (p === node) nodes.delete(id);
  };

  before(async () => {
    storage = await openJobStorage();
    dataDir = await mkdtemp(join(tmpdir(), 'tts-jobs-'));
    scheduler = await start({
      host: '127.0.0.1',
      port: 0,
      heartbeatMs: 200,
      nodeTimeoutMs: 1500,
      staticNodes: [],
      discovery: 'self',
      dataDir,
      database: storage.database,
      kv: storage.kv,
      schedulerId: 'scheduler-node-failure',
      jobMaxAttempts: 2,
      queuePollMs: 100,
    });
    client = schedulerClient(scheduler.address);
    await addNodes(2);
  });

  after(async () => {
    await Promise.all([...nodes.values()].map((n) => n.stop()));
    await scheduler?.stop(1000);
    closeAllClients();
    await storage?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('kill -9 of the node holding a job: the job completes on the other node', async () => {
    const job = await submitJob(client, jobSpec(LONG_TEXT));
    let killed: string | undefined;
    const events = await followJob(job.jobId, (node, e) => {
      if (killed !== undefined) return;
      killed = e.nodeId;
      node.kill('SIGKILL');
      dropNode(node);
    });
    assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'retrying', 'running', 'completed']);
    const [, first, retrying, second, completed] = events as [JobEvent, JobEvent, JobEvent, JobEvent, JobEvent];
    assert.equal(first.nodeId, killed);
    assert.equal(retrying.errorCode, 'JOB_NODE_LOST');
    assert.equal(retrying.state, JobState.JOB_STATE_RETRYING);
    assert.notEqual(second.nodeId, killed, 'the retry runs elsewhere');
    assert.equal(second.attempt, 2);
    assert.equal(completed.nodeId, second.nodeId);
    const { audio, result } = await readJobAudio(client, job.jobId);
    assert.equal(audio.toString('ascii', 0, 4), 'RIFF');
    assert.ok(result.audioSeconds > 100, `audio ${result.audioSeconds} s`);
  });

  test('a node that stops heart-beating mid-job (SIGSTOP): the job moves to another node', async () => {
    await addNodes(1);
    const job = await submitJob(client, jobSpec(LONG_TEXT));
    let frozen: ServiceProcess | undefined;
    const started = Date.now();
    const events = await followJob(job.jobId, (node) => {
      if (frozen) return;
      frozen = node;
      node.kill('SIGSTOP');
    });
    assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'retrying', 'running', 'completed']);
    assert.equal(events[2]?.errorCode, 'JOB_NODE_LOST');
    assert.ok(Date.now() - started < 20_000);
    assert.ok(frozen);
    frozen.kill('SIGKILL');
    dropNode(frozen);
    const { job: done } = await callUnary(client.getJob.bind(client), { jobId: job.jobId });
    assert.equal(done?.attempts, 2);
    assert.equal(done?.state, JobState.JOB_STATE_COMPLETED);
  });

  test('losing the node on every attempt fails the job with JOB_NODE_LOST', async () => {
    await addNodes(1);
    const job = await submitJob(client, jobSpec(LONG_TEXT));
    const events = await followJob(job.jobId, (node) => {
      node.kill('SIGKILL');
      dropNode(node);
    });
    assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'retrying', 'running', 'failed']);
    const failed = events.at(-1)!;
    assert.equal(failed.errorCode, 'JOB_NODE_LOST');
    assert.equal(failed.attempt, 2);
    const { job: record } = await callUnary(client.getJob.bind(client), { jobId: job.jobId });
    assert.equal(record?.state, JobState.JOB_STATE_FAILED);
    assert.equal(record?.errorCode, 'JOB_NODE_LOST');
    assert.match(record?.errorMessage ?? '', /lost/);
  });
});
