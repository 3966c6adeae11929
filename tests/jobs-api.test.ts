/**
 * Asynchronous jobs end to end: an in-process scheduler on the real PostgreSQL (fresh schema) and
 * Redis (fresh prefix), and two real inference node processes. Submit, poll events to completion,
 * download valid audio, watch, list, cancel, priorities and the errors of the job RPCs.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JobOwnerKind, JobState, type SchedulerClient } from '@tts/proto/scheduler';
import { AudioEncoding } from '@tts/proto/synthesis';
import { callUnary, closeAllClients, schedulerClient, setLogSink, TtsError } from '@tts/common';
import { start, type RunningScheduler } from '@tts/scheduler';
import {
  jobSpec,
  openJobStorage,
  pollJobEvents,
  readJobAudio,
  startNodeProcess,
  submitJob,
  waitUntil,
  watchJobEvents,
  type JobStorage,
  type ServiceProcess,
} from '@tts/scheduler/testing';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

const SENTENCE = 'The quick brown fox jumps over the lazy dog near the quiet river bank. ';

function wavInfo(buf: Buffer): { sampleRate: number; seconds: number } {
  assert.equal(buf.toString('ascii', 0, 4), 'RIFF');
  assert.equal(buf.toString('ascii', 8, 12), 'WAVE');
  assert.equal(buf.readUInt32LE(4), buf.length - 8, 'RIFF size matches the file');
  const sampleRate = buf.readUInt32LE(24);
  const dataSize = buf.readUInt32LE(40);
  assert.equal(buf.toString('ascii', 36, 40), 'data');
  return { sampleRate, seconds: dataSize / 2 / sampleRate };
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof TtsError && e.code === code);
}

describe('jobs API (scheduler + two node processes)', () => {
  let storage: JobStorage;
  let dataDir: string;
  let scheduler: RunningScheduler;
  let client: SchedulerClient;
  const nodes: ServiceProcess[] = [];

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
      schedulerId: 'scheduler-jobs-api',
      queuePollMs: 100,
    });
    client = schedulerClient(scheduler.address);
    nodes.push(...(await Promise.all(['api-node-a', 'api-node-b'].map((nodeId) => startNodeProcess({ nodeId, schedulerAddress: scheduler.address })))));
    await waitUntil(() => scheduler.context.membership.ready().length === 2, 10_000, 'two ready nodes');
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await scheduler?.stop(1000);
    closeAllClients();
    await storage?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('submit, poll events to completion, download valid audio stored by content hash', async () => {
    const submitted = await submitJob(client, jobSpec('Hello from an asynchronous job. It has two sentences.'), { ownerId: 'key_alpha', tier: 'pro' });
    assert.match(submitted.jobId, /^job_[A-Za-z0-9_-]{20}$/);
    // Idle nodes: the job may already be running when SubmitJob answers.
    assert.ok([JobState.JOB_STATE_QUEUED, JobState.JOB_STATE_RUNNING].includes(submitted.state), `state ${submitted.state}`);
    assert.equal(submitted.ownerId, 'key_alpha');
    assert.equal(submitted.ownerKind, JobOwnerKind.JOB_OWNER_KIND_API_KEY);
    assert.equal(submitted.lastEventId, submitted.state === JobState.JOB_STATE_QUEUED ? 1 : 2);

    const events = await pollJobEvents(client, submitted.jobId);
    assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'completed']);
    assert.deepEqual(events.map((e) => e.eventId), [1, 2, 3]);
    assert.deepEqual(events.map((e) => e.progress), [0, 0, 1]);
    assert.ok(['api-node-a', 'api-node-b'].includes(events[1]!.nodeId), 'running names the node');
    assert.equal(events[1]!.attempt, 1);
    assert.equal(events[2]!.state, JobState.JOB_STATE_COMPLETED);
    assert.ok(events.every((e, i) => i === 0 || e.atUnixMs >= events[i - 1]!.atUnixMs));
    assert.deepEqual(JSON.parse(events[1]!.payloadJson), { state: 'running', progress: 0, node_id: events[1]!.nodeId, attempt: 1 });

    const { job } = await callUnary(client.getJob.bind(client), { jobId: submitted.jobId });
    assert.equal(job?.state, JobState.JOB_STATE_COMPLETED);
    assert.equal(job?.progress, 1);
    assert.ok(job!.finishedUnixMs >= job!.startedUnixMs && job!.startedUnixMs >= job!.createdUnixMs);
    const { result, audio } = await readJobAudio(client, submitted.jobId);
    assert.equal(result.contentType, 'audio/wav');
    assert.equal(result.sizeBytes, audio.length);
    assert.equal(result.sha256, createHash('sha256').update(audio).digest('hex'));
    assert.equal(result.artifactPath, `artifacts/${result.sha256}.wav`);
    assert.ok(existsSync(join(dataDir, result.artifactPath)), 'the artifact lives under DATA_DIR/artifacts');
    assert.deepEqual(job?.result, result);
    const wav = wavInfo(audio);
    assert.ok(wav.seconds > 1 && wav.seconds < 10, `duration ${wav.seconds}`);
    assert.ok(Math.abs(wav.seconds - result.audioSeconds) < 0.05);
  });

  test('WatchJob streams the events live until the terminal one; a finished job ends at once', async () => {
    const job = await submitJob(client, jobSpec('Watching this job as it runs.', { encoding: AudioEncoding.AUDIO_ENCODING_MP3 }));
    const watched = await watchJobEvents(client, job.jobId);
    assert.deepEqual(watched.map((e) => e.kind), ['queued', 'running', 'completed']);
    const tail = await watchJobEvents(client, job.jobId, 2);
    assert.deepEqual(tail.map((e) => e.eventId), [3]);
    assert.deepEqual(await watchJobEvents(client, job.jobId, 3), []);
    const { result, audio } = await readJobAudio(client, job.jobId);
    assert.equal(result.contentType, 'audio/mpeg');
    assert.equal(result.encoding, AudioEncoding.AUDIO_ENCODING_MP3);
    assert.ok(audio.length > 1000);
    await rejectsWith(watchJobEvents(client, 'job_missing'), 'JOB_NOT_FOUND');
  });

  test('ListJobs returns only the owner\'s jobs, most recent first, limited', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await submitJob(client, jobSpec(`Web job number ${i}.`), { ownerId: 'web:s1', ownerKind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' })).jobId);
    await submitJob(client, jobSpec('Someone else.'), { ownerId: 'web:s2', ownerKind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' });
    const { jobs } = await callUnary(client.listJobs.bind(client), { ownerId: 'web:s1', limit: 2, ownerKind: JobOwnerKind.JOB_OWNER_KIND_WEB });
    assert.deepEqual(jobs.map((j) => j.jobId), [ids[2], ids[1]]);
    assert.ok(jobs.every((j) => j.ownerKind === JobOwnerKind.JOB_OWNER_KIND_WEB && j.tier === 'web'));
    const all = await callUnary(client.listJobs.bind(client), { ownerId: 'web:s1', limit: 0, ownerKind: JobOwnerKind.JOB_OWNER_KIND_UNSPECIFIED });
    assert.equal(all.jobs.length, 3);
    // A studio user's job is kept with its owner kind (and a VIP tier ranks as pro); a listing of
    // one owner kind never shows another kind's jobs of the same owner id.
    const studio = await submitJob(client, jobSpec('A studio job.'), { ownerId: 'web:s1', ownerKind: JobOwnerKind.JOB_OWNER_KIND_STUDIO, tier: 'studio_vip' });
    assert.equal(studio.ownerKind, JobOwnerKind.JOB_OWNER_KIND_STUDIO);
    const studioOnly = await callUnary(client.listJobs.bind(client), { ownerId: 'web:s1', limit: 10, ownerKind: JobOwnerKind.JOB_OWNER_KIND_STUDIO });
    assert.deepEqual(studioOnly.jobs.map((j) => j.jobId), [studio.jobId]);
    assert.equal((await callUnary(client.listJobs.bind(client), { ownerId: 'web:s1', limit: 10, ownerKind: JobOwnerKind.JOB_OWNER_KIND_WEB })).jobs.length, 3);
    assert.equal((await callUnary(client.listJobs.bind(client), { ownerId: 'web:s1', limit: 10, ownerKind: JobOwnerKind.JOB_OWNER_KIND_UNSPECIFIED })).jobs.length, 4);
    await Promise.all(ids.map((id) => pollJobEvents(client, id)));
  });

  test('CancelJob stops a running job; its audio is refused; a finished job is not cancelled again', async () => {
    const job = await submitJob(client, jobSpec(SENTENCE.repeat(60)));
    await waitUntil(async () => (await callUnary(client.getJob.bind(client), { jobId: job.jobId })).job?.state === JobState.JOB_STATE_RUNNING, 10_000, 'running');
    await rejectsWith(readJobAudio(client, job.jobId), 'JOB_NOT_READY');
    const res = await callUnary(client.cancelJob.bind(client), { jobId: job.jobId });
    assert.equal(res.cancelled, true);
    assert.equal(res.job?.state, JobState.JOB_STATE_CANCELLED);
    const events = await pollJobEvents(client, job.jobId);
    assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'cancelled']);
    await rejectsWith(readJobAudio(client, job.jobId), 'JOB_CANCELLED');
    const again = await callUnary(client.cancelJob.bind(client), { jobId: job.jobId });
    assert.equal(again.cancelled, false);
    // The node's slot is free again: a new job runs at once.
    const next = await submitJob(client, jobSpec('After the cancellation.'));
    assert.equal((await pollJobEvents(client, next.jobId, 10_000)).at(-1)?.kind, 'completed');
    await rejectsWith(callUnary(client.cancelJob.bind(client), { jobId: 'job_missing' }), 'JOB_NOT_FOUND');
  });

  test('rejects invalid jobs with catalogue codes and unknown ids with JOB_NOT_FOUND', async () => {
    await rejectsWith(submitJob(client, jobSpec('   ')), 'TTS_TEXT_EMPTY');
    await rejectsWith(submitJob(client, jobSpec('x'.repeat(20_001))), 'TTS_TEXT_TOO_LONG');
    await rejectsWith(submitJob(client, jobSpec('Hi.', { speed: 9 })), 'TTS_SPEED_OUT_OF_RANGE');
    await rejectsWith(submitJob(client, jobSpec('Hi.', { encoding: 42 as AudioEncoding })), 'TTS_FORMAT_UNSUPPORTED');
    // The job tables keep no bit rate: a job asking for one is refused rather than encoded at another.
    await rejectsWith(submitJob(client, jobSpec('Hi.', { encoding: AudioEncoding.AUDIO_ENCODING_MP3, bitrateKbps: 192 })), 'VALIDATION_FAILED');
    await rejectsWith(submitJob(client, jobSpec('Hi.', { voice: '', engine: 'nonesuch' })), 'TTS_ENGINE_NOT_FOUND');
    await rejectsWith(submitJob(client, jobSpec('Hi.', { voice: 'nonesuch:x' })), 'TTS_VOICE_NOT_FOUND');
    await rejectsWith(submitJob(client, jobSpec('Hi.'), { ownerId: '' }), 'VALIDATION_FAILED');
    await rejectsWith(submitJob(client, jobSpec('Hi.'), { ownerKind: JobOwnerKind.JOB_OWNER_KIND_UNSPECIFIED }), 'VALIDATION_FAILED');
    await rejectsWith(callUnary(client.getJob.bind(client), { jobId: 'job_missing' }), 'JOB_NOT_FOUND');
    await rejectsWith(callUnary(client.listJobEvents.bind(client), { jobId: 'job_missing', afterEventId: 0, limit: 10 }), 'JOB_NOT_FOUND');
    await rejectsWith(readJobAudio(client, 'job_missing'), 'JOB_NOT_FOUND');
  });

  test('a voice the node refuses fails the job at once with the node\'s code', async () => {
    const job = await submitJob(client, jobSpec('Hi.', { voice: 'flite:no-such-voice' }));
    const events = await pollJobEvents(client, job.jobId);
    assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'failed']);
    assert.equal(events.at(-1)?.errorCode, 'TTS_VOICE_NOT_FOUND');
    const { job: failed } = await callUnary(client.getJob.bind(client), { jobId: job.jobId });
    assert.equal(failed?.attempts, 1, 'a non-retryable error is not retried');
    await rejectsWith(readJobAudio(client, job.jobId), 'JOB_FAILED');
  });

  test('runs queued jobs by tier priority when capacity frees up; GetQueueStats reports the queue', async () => {
    // Occupy both nodes (one flite slot each), one for much longer than the other, then queue one
    // job per tier, lowest first. The short blocker's node frees first and runs the four queued
    // jobs one after another while the long blocker still runs, so their start order is strict
    // (two slots freeing in one dispatch round would start two tiers together, in either order).
    // The long one first: the short one then goes to the other node whatever speeds the nodes have
    // measured (submitted together, the long one could wait for the short one's node if that node
    // had measured itself faster, since placement goes by estimated finish).
    const blockers = [await submitJob(client, jobSpec(SENTENCE.repeat(150)))];
    await waitUntil(async () => (await callUnary(client.getQueueStats.bind(client), {})).running === 1, 10_000, 'one node busy');
    blockers.push(await submitJob(client, jobSpec(SENTENCE.repeat(50))));
    await waitUntil(async () => (await callUnary(client.getQueueStats.bind(client), {})).running === 2, 10_000, 'both nodes busy');
    const order = ['web', 'free', 'pro', 'enterprise'];
    const byTier = new Map<string, string>();
    for (const tier of order) byTier.set(tier, (await submitJob(client, jobSpec(`A ${tier} job.`), { tier })).jobId);
    const stats = await callUnary(client.getQueueStats.bind(client), {});
    assert.equal(stats.queued, 4);
    assert.equal(stats.running, 2);
    assert.equal(stats.nodesReady, 2);
    assert.equal(stats.capacity, 2);
    assert.ok(stats.etaSeconds > 0, `eta ${stats.etaSeconds}`);
    const started = new Map<string, number>();
    await Promise.all(
      [...byTier].map(async ([tier, id]) => {
        const events = await pollJobEvents(client, id, 30_000);
        started.set(tier, events.find((e) => e.kind === 'running')!.atUnixMs);
      }),
    );
    await Promise.all(blockers.map((b) => pollJobEvents(client, b.jobId)));
    const startOrder = [...started].sort((a, b) => a[1] - b[1]).map(([tier]) => tier);
    assert.deepEqual(startOrder, ['enterprise', 'pro', 'free', 'web']);
  });
});
