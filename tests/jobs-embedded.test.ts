/**
 * Jobs without external services: the embedded PGlite under DATA_DIR/scheduler (opened in the
 * background at start) and the in-process queue. A restarted scheduler rebuilds its in-process
 * queue from the database, resuming queued and interrupted jobs.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JobState, type Job, type SchedulerClient } from '@tts/proto/scheduler';
import { callUnary, closeAllClients, schedulerClient, setLogSink, TtsError } from '@tts/common';
import { start as startNode, type RunningNode } from '@tts/inference-node';
import { start, type RunningScheduler, type SchedulerStartOptions } from '@tts/scheduler';
import { jobSpec, pollJobEvents, readJobAudio, submitJob, waitUntil } from '@tts/scheduler/testing';
import { freePort } from './support/processes.js';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

describe('jobs on the embedded store and the in-process queue', () => {
  let dataDir: string;
  let options: SchedulerStartOptions;
  let scheduler: RunningScheduler | undefined;
  let node: RunningNode | undefined;
  let client: SchedulerClient;

  const startScheduler = async (): Promise<void> => {
    scheduler = await start(options);
    client = schedulerClient(scheduler.address);
  };
  const startFliteNode = async (): Promise<void> => {
    node = await startNode({ host: '127.0.0.1', port: 0, nodeId: 'embedded-node', engines: ['flite'], fliteWorkers: 1, schedulerAddress: scheduler!.address, heartbeatMs: 200 });
    await waitUntil(() => scheduler!.context.membership.ready().length === 1, 10_000, 'node registration');
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tts-jobs-embedded-'));
    options = {
      host: '127.0.0.1',
      port: await freePort(),
      heartbeatMs: 200,
      nodeTimeoutMs: 1500,
      staticNodes: [],
      discovery: 'self',
      dataDir,
      ephemeral: false,
      schedulerId: 'scheduler-embedded',
      queuePollMs: 100,
    };
    // No database, no Redis: the configuration must not point at any.
    delete process.env['SCHEDULER_DATABASE_URL'];
    delete process.env['DATABASE_URL'];
    delete process.env['REDIS_URL'];
    await startScheduler();
  });

  after(async () => {
    await node?.stop(1000);
    await scheduler?.stop(1000);
    closeAllClients();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('the scheduler serves at once while the embedded store opens; job calls wait for it', async () => {
    const nodes = await callUnary(client.listNodes.bind(client), {});
    assert.deepEqual(nodes.nodes, []);
    const stats = await callUnary(client.getQueueStats.bind(client), {}, { timeoutMs: 30_000 });
    assert.deepEqual([stats.queued, stats.running, stats.nodesReady], [0, 0, 0]);
    assert.ok(existsSync(join(dataDir, 'scheduler', 'pglite')), 'the embedded store lives under DATA_DIR/scheduler');
    assert.deepEqual((await callUnary(client.listJobs.bind(client), { ownerId: 'anyone', limit: 5, ownerKind: 0 })).jobs, []);
    await assert.rejects(callUnary(client.getJob.bind(client), { jobId: 'job_x' }), (e: unknown) => e instanceof TtsError && e.code === 'JOB_NOT_FOUND');
  });

  test('queued jobs wait for a node, survive a restart of the scheduler and complete', async () => {
    const jobs: Job[] = [];
    for (let i = 0; i < 4; i++) jobs.push(await submitJob(client, jobSpec(`Embedded job ${i}.`), { tier: 'free' }));
    assert.ok(jobs.every((j) => j.state === JobState.JOB_STATE_QUEUED), 'no node yet: every job waits');
    assert.equal((await callUnary(client.getQueueStats.bind(client), {})).queued, 4);

    await scheduler!.stop(1000);
    await startScheduler();
    await startFliteNode();
    for (const j of jobs) assert.deepEqual((await pollJobEvents(client, j.jobId, 20_000)).map((e) => e.kind), ['queued', 'running', 'completed']);
    const { audio } = await readJobAudio(client, jobs[0]!.jobId);
    assert.equal(audio.toString('ascii', 0, 4), 'RIFF');
  });

  test('a job abandoned by a stopping scheduler is retried after the restart', async () => {
    const long = await submitJob(client, jobSpec('This sentence keeps the node busy for a while. '.repeat(30)));
    await waitUntil(async () => (await callUnary(client.getJob.bind(client), { jobId: long.jobId })).job?.state === JobState.JOB_STATE_RUNNING, 10_000, 'running');
    await scheduler!.stop(0); // no grace: the synthesis is abandoned, the job stays running in the database
    await node!.stop(1000);
    await startScheduler();
    await startFliteNode();
    const kinds = (await pollJobEvents(client, long.jobId, 30_000)).map((e) => e.kind);
    assert.deepEqual(kinds, ['queued', 'running', 'retrying', 'running', 'completed']);
  });
});
