/**
 * The job service in process: its refusals (stable codes), its owner rules, submission (at once on
 * a free node, else queued by tier), cancellation, audio reads and the queue bound, over the real
 * repository on an embedded PGlite, the in-process queue and fake nodes (testing.ts).
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { after, describe, it, type TestContext } from 'node:test';
import { SAMPLE_RATE_RANGE, SPEED_RANGE, TtsError } from '@tts/common';
import { MemoryKv } from '@tts/common/kv';
import { databaseBackends, nodeStatusFixture, type NodeStatusFixture } from '@tts/common/testing';
import { SCHEDULER_MIGRATIONS } from '../../data/migrations/index.js';
import type { JobRecord, JobSpecFields, JobState } from '../../data/jobs.js';
import { loadSchedulerConfig } from '../../config.js';
import { Membership } from '../membership.js';
import { createPlacementPolicy } from '../routing.js';
import { JobService, type SubmitJobInput } from './job-service.js';
import { FakeNodes, jobTestStorage, recordingLogger, specOf, stateReached } from './testing.js';

const backend = databaseBackends(SCHEDULER_MIGRATIONS).find((b) => b.name === 'pglite')!;
after(() => backend.close());

/** Longest job text of the services below. */
const MAX_CHARS = 100;

interface Rig {
  readonly jobs: JobService;
  readonly nodes: FakeNodes;
  readonly dataDir: string;
  /** Submits `spec` (default: 10 characters for flite:v) as API key key_1 of tier pro, or as `owner` says. */
  submit(spec?: Partial<JobSpecFields>, owner?: Partial<SubmitJobInput>): Promise<JobRecord>;
  reached(jobId: string, state: JobState): Promise<JobRecord>;
}

/** A started job service over `nodes` (none: no node known yet), configured by `env`. */
async function rig(t: TestContext, nodes: Record<string, NodeStatusFixture> = {}, env: Record<string, string> = {}): Promise<Rig> {
  const { database, dataDir, cleanup } = await jobTestStorage(t, backend);
  // Nodes stay healthy for the whole test: heart-beating is the dispatcher spec's concern.
  const membership = new Membership(3_600_000);
  for (const [nodeId, o] of Object.entries(nodes)) membership.register(nodeStatusFixture(nodeId, o));
  const fakeNodes = new FakeNodes();
  const jobs = await JobService.create({
    config: loadSchedulerConfig({ DATA_DIR: dataDir, SCHEDULER_ID: 'scheduler-test', SCHEDULER_JOB_MAX_CHARS: String(MAX_CHARS), SCHEDULER_QUEUE_POLL_MS: '60000', ...env }),
    membership,
    policy: createPlacementPolicy('least-loaded-all'),
    logger: recordingLogger(),
    database,
    kv: new MemoryKv({ prefix: 'test' }),
    synthesize: fakeNodes.synthesize,
  });
  cleanup(() => jobs.close(0));
  return {
    jobs,
    nodes: fakeNodes,
    dataDir,
    submit: (spec = {}, owner = {}) => jobs.submit({ ownerId: 'key_1', ownerKind: 'api_key', tier: 'pro', requestId: 'req-1', spec: { ...specOf(10), ...spec }, ...owner }),
    reached: (jobId, state) => stateReached((id) => jobs.get(id), jobs.notifier, jobId, state),
  };
}

/** Asserts that `promise` rejects with catalogue code `code` (and `loc`, when given). */
async function refused(promise: Promise<unknown>, code: string, loc?: readonly string[]): Promise<TtsError> {
  let error: unknown;
  await assert.rejects(promise, (e: unknown) => {
    error = e;
    return e instanceof TtsError && e.code === code;
  });
  if (loc !== undefined) assert.deepEqual((error as TtsError).loc, loc);
  return error as TtsError;
}

describe('job service: refusals', () => {
  it('refuses a job it could never run, with the stable code of each reason, and records nothing', async (t) => {
    const r = await rig(t, { a: {} });
    await refused(r.submit({}, { ownerId: '' }), 'VALIDATION_FAILED', ['owner_id']);
    await refused(r.submit({}, { ownerId: '   ' }), 'VALIDATION_FAILED', ['owner_id']);
    await refused(r.submit({}, { ownerId: 'k'.repeat(257) }), 'VALIDATION_FAILED', ['owner_id']);
    await refused(r.submit({ text: ' \n ' }), 'TTS_TEXT_EMPTY', ['spec', 'text']);
    await refused(r.submit({ text: 'x'.repeat(MAX_CHARS + 1) }), 'TTS_TEXT_TOO_LONG', ['spec', 'text']);
    for (const speed of [SPEED_RANGE.min / 2, SPEED_RANGE.max * 2, -1, Number.NaN]) await refused(r.submit({ speed }), 'TTS_SPEED_OUT_OF_RANGE', ['spec', 'speed']);
    for (const sampleRate of [SAMPLE_RATE_RANGE.min - 1, SAMPLE_RATE_RANGE.max + 1]) await refused(r.submit({ sampleRate }), 'TTS_SAMPLE_RATE_INVALID', ['spec', 'sample_rate']);
    await refused(r.submit({ engine: 'nope' }), 'TTS_ENGINE_NOT_FOUND', ['spec', 'engine']);
    await refused(r.submit({ voice: 'nope:v' }), 'TTS_VOICE_NOT_FOUND', ['spec', 'voice']);
    assert.deepEqual(await r.jobs.list('key_1', 10), []);
    assert.deepEqual(r.nodes.calls, []);
  });

  it('accepts the limits themselves, and a voice of an engine no node offered while no node is known (the job waits)', async (t) => {
    const known = await rig(t, { a: { capacity: 8 } });
    for (const spec of [{ text: 'x'.repeat(MAX_CHARS) }, { speed: SPEED_RANGE.min }, { speed: SPEED_RANGE.max }, { sampleRate: SAMPLE_RATE_RANGE.max }]) {
      assert.equal((await known.submit(spec)).state, 'running');
    }
    const none = await rig(t);
    assert.equal((await none.submit({ voice: 'nope:v' })).state, 'queued');
  });

  it('answers JOB_NOT_FOUND for a job it does not have', async (t) => {
    const r = await rig(t);
    await refused(r.jobs.get('job_unknown'), 'JOB_NOT_FOUND', ['job_id']);
    await refused(r.jobs.cancel('job_unknown'), 'JOB_NOT_FOUND', ['job_id']);
    await refused(r.jobs.events('job_unknown', 0, 10), 'JOB_NOT_FOUND');
    await refused(r.jobs.audio('job_unknown'), 'JOB_NOT_FOUND');
  });

  it('refuses a job that would queue while the queue would take longer than its bound to drain (TTS_OVERLOADED, with a retry time)', async (t) => {
    // One slot, 10 s per character: the running 20-character job alone keeps it for 200 s.
    const r = await rig(t, { slow: { capacity: 1, secondsPerChar: 10 } }, { SCHEDULER_JOB_MAX_QUEUE_WAIT_SEC: '60' });
    assert.equal((await r.submit({ text: 'x'.repeat(20) })).state, 'running', 'a job that starts at once is never refused');
    const error = await refused(r.submit({ text: 'x'.repeat(20) }), 'TTS_OVERLOADED');
    assert.ok((error.retryAfterSec ?? 0) >= 100, `retry after ${error.retryAfterSec} s`);
    assert.equal((await r.jobs.list('key_1', 10)).length, 1);
  });
});

describe('job service: owners', () => {
  it('lists only the named owner’s jobs, of one owner kind when asked, most recent first; an owner is required', async (t) => {
    const r = await rig(t);
    const first = await r.submit();
    await r.submit({}, { ownerId: 'key_2' });
    const asWeb = await r.submit({}, { ownerKind: 'web', tier: 'web' });
    const second = await r.submit();
    assert.deepEqual((await r.jobs.list('key_1', 10)).map((j) => j.jobId), [second.jobId, asWeb.jobId, first.jobId]);
    assert.deepEqual((await r.jobs.list('key_1', 10, 'api_key')).map((j) => j.jobId), [second.jobId, first.jobId]);
    assert.deepEqual((await r.jobs.list('key_1', 1)).map((j) => j.jobId), [second.jobId]);
    await refused(r.jobs.list('', 10), 'VALIDATION_FAILED', ['owner_id']);
  });

  it('records the owner, its kind and tier, and the queue priority of the tier (an unknown tier ranks as free)', async (t) => {
    const r = await rig(t);
    const cases = [['enterprise', 0], ['pro', 1], ['studio_vip', 1], ['free', 2], ['gold', 2], ['web', 3]] as const;
    for (const [tier, priority] of cases) {
      const job = await r.submit({}, { ownerId: `owner-${tier}`, ownerKind: 'studio', tier, requestId: '' });
      assert.deepEqual([job.ownerId, job.ownerKind, job.tier, job.priority, job.requestId], [`owner-${tier}`, 'studio', tier, priority, null]);
    }
  });
});

describe('job service: submission and cancellation', () => {
  it('starts a job at once on a free node (events queued and running), else queues it until a node has room', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } }, { SCHEDULER_JOB_MAX_ATTEMPTS: '5' });
    const now = await r.submit();
    assert.deepEqual([now.state, now.nodeId, now.attempts, now.maxAttempts], ['running', 'only', 1, 5]);
    assert.deepEqual((await r.jobs.events(now.jobId, 0, 10)).events.map((e) => e.kind), ['queued', 'running']);
    const later = await r.submit();
    assert.equal(later.state, 'queued');
    assert.deepEqual((await r.jobs.stats()).queued, 1);
    (await r.nodes.callFor(now.jobId)).succeed();
    (await r.nodes.callFor(later.jobId)).succeed();
    const done = await r.reached(later.jobId, 'completed');
    const page = await r.jobs.events(later.jobId, 1, 10);
    assert.deepEqual([page.events.map((e) => e.kind), page.state, page.lastEventId], [['running', 'completed'], 'completed', done.lastEventId]);
  });

  it('cancels a queued job once (a second cancel changes nothing) and stops a running one on its node', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    const running = await r.submit();
    const queued = await r.submit();
    const first = await r.jobs.cancel(queued.jobId);
    assert.deepEqual([first.cancelled, first.job.state], [true, 'cancelled']);
    const again = await r.jobs.cancel(queued.jobId);
    assert.deepEqual([again.cancelled, again.job.state], [false, 'cancelled']);
    const call = await r.nodes.callFor(running.jobId);
    assert.equal((await r.jobs.cancel(running.jobId)).cancelled, true);
    assert.ok(call.signal.aborted);
    assert.equal((await r.jobs.get(running.jobId)).state, 'cancelled');
    assert.deepEqual((await r.jobs.events(queued.jobId, 0, 10)).events.map((e) => e.kind), ['queued', 'cancelled']);
  });
});

describe('job service: audio', () => {
  it('serves a completed job’s audio, and refuses the others with why (not ready, failed, cancelled, file gone)', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    const completed = await r.submit();
    const waiting = await r.submit();
    const notReady = await refused(r.jobs.audio(waiting.jobId), 'JOB_NOT_READY');
    assert.equal(notReady.retryAfterSec, 1);
    (await r.nodes.callFor(completed.jobId)).succeed(Buffer.from('RIFF audio'));
    await r.reached(completed.jobId, 'completed');
    const { job, stream } = await r.jobs.audio(completed.jobId);
    assert.equal(job.result?.bytes, 'RIFF audio'.length);
    assert.equal(await text(stream), 'RIFF audio');

    (await r.nodes.callFor(waiting.jobId)).fail(new TtsError('TTS_VOICE_NOT_FOUND'));
    await r.reached(waiting.jobId, 'failed');
    await refused(r.jobs.audio(waiting.jobId), 'JOB_FAILED');
    const cancelled = await r.submit();
    await r.jobs.cancel(cancelled.jobId);
    await refused(r.jobs.audio(cancelled.jobId), 'JOB_CANCELLED');

    await rm(join(r.dataDir, job.result!.path));
    await refused(r.jobs.audio(completed.jobId), 'JOB_RESULT_MISSING');
  });

  it('refuses every call once closed (SERVICE_SHUTTING_DOWN)', async (t) => {
    const r = await rig(t);
    const job = await r.submit();
    await r.jobs.close(0);
    await refused(r.jobs.get(job.jobId), 'SERVICE_SHUTTING_DOWN');
    await refused(r.submit(), 'SERVICE_SHUTTING_DOWN');
  });
});
