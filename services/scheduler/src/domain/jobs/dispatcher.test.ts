/**
 * The dispatcher's decisions, in process: the real job repository on an embedded PGlite, the
 * in-process work queue, the real membership and placement policy, and fake nodes (testing.ts)
 * that answer each `Synthesize` when the test says so, on a clock the test moves.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { TtsError } from '@tts/common';
import { MemoryWorkQueue } from '@tts/common/kv';
import { databaseBackends, nodeStatusFixture, type NodeStatusFixture } from '@tts/common/testing';
import { SCHEDULER_MIGRATIONS } from '../../data/migrations/index.js';
import { NodeState } from '@tts/proto/synthesis';
import { JobRepository, type JobRecord, type JobState, type NewJob } from '../../data/jobs.js';
import { SchedulerLeaseRepository } from '../../data/scheduler-leases.js';
import { Membership } from '../membership.js';
import { createPlacementPolicy } from '../routing.js';
import { ArtifactStore, type StoredArtifact } from './artifacts.js';
import { Dispatcher } from './dispatcher.js';
import { JobNotifier } from './job-events.js';
import { PRIORITY_LEVELS, priorityOfTier } from './priorities.js';
import { encodeQueuedJob } from './queue-items.js';
import { FakeNodes, TestClock, jobTestStorage, newJob, recordingLogger, specOf, stateReached } from './testing.js';

const backend = databaseBackends(SCHEDULER_MIGRATIONS).find((b) => b.name === 'pglite')!;
after(() => backend.close());

/** Missed-heartbeat time after which the membership calls a node unhealthy, ms (of the test clock). */
const NODE_TIMEOUT_MS = 3000;

/** A dispatcher with its collaborators, started. */
interface Rig {
  readonly dispatcher: Dispatcher;
  readonly repo: JobRepository;
  readonly queue: MemoryWorkQueue;
  readonly membership: Membership;
  readonly nodes: FakeNodes;
  readonly clock: TestClock;
  readonly dataDir: string;
  /** Records a job and adds its queue entry, as a submission that does not start at once. */
  enqueue(job: NewJob): Promise<JobRecord>;
  /** Asks for a dispatch round and waits until it is over. */
  round(): Promise<void>;
  /** Resolves to the job once it is in `state`. */
  reached(jobId: string, state: JobState): Promise<JobRecord>;
  /** The kinds of the job's events, in order. */
  eventKinds(jobId: string): Promise<string[]>;
}

async function rig(t: TestContext, nodes: Record<string, NodeStatusFixture>, artifacts?: (dataDir: string) => ArtifactStore): Promise<Rig> {
  const { database, dataDir, cleanup } = await jobTestStorage(t, backend);
  const clock = new TestClock();
  const membership = new Membership(NODE_TIMEOUT_MS, clock.now);
  for (const [nodeId, o] of Object.entries(nodes)) membership.register(nodeStatusFixture(nodeId, o));
  const repo = new JobRepository(database);
  const queue = new MemoryWorkQueue(PRIORITY_LEVELS);
  const notifier = new JobNotifier();
  const fakeNodes = new FakeNodes();
  const dispatcher = new Dispatcher({
    repo,
    leases: new SchedulerLeaseRepository(database),
    queue,
    artifacts: artifacts?.(dataDir) ?? new ArtifactStore(dataDir),
    membership,
    policy: createPlacementPolicy('least-loaded-all'),
    notifier,
    logger: recordingLogger(),
    consumer: 'scheduler-test',
    jobTimeoutMs: 60_000,
    // Rounds run when the test asks (or a job ends), never on a timer.
    pollMs: 3_600_000,
    leaseMs: 30_000,
    // The watchdog reads the test clock: it finds a node lost only once the test moved the clock.
    watchdogMs: 10,
    synthesize: fakeNodes.synthesize,
    now: clock.now,
  });
  await dispatcher.start();
  cleanup(() => dispatcher.stop(0));
  return {
    dispatcher,
    repo,
    queue,
    membership,
    nodes: fakeNodes,
    clock,
    dataDir,
    async enqueue(job) {
      const record = await repo.insert(job);
      await queue.add(encodeQueuedJob({ jobId: job.jobId, voice: job.spec.voice, engine: job.spec.engine, characters: job.spec.text.length }), job.priority);
      dispatcher.noteQueued();
      return record;
    },
    async round() {
      dispatcher.kick();
      await dispatcher.idle();
    },
    reached: (jobId, state) => stateReached((id) => repo.find(id), notifier, jobId, state),
    eventKinds: async (jobId) => (await repo.events(jobId, 0, 100)).map((e) => e.kind),
  };
}

/** Two nodes of one slot each; "slow" takes three times as long per character. */
const FAST_AND_SLOW = { fast: { secondsPerChar: 0.001, capacity: 1 }, slow: { secondsPerChar: 0.003, capacity: 1 } };
/** Two equal nodes of one slot each. */
const TWO_NODES = { a: { capacity: 1 }, b: { capacity: 1 } };

describe('dispatcher: placement', () => {
  it('sends a job to an idle slow node when the busy fast node would still finish it later', async (t) => {
    const r = await rig(t, FAST_AND_SLOW);
    const long = await r.enqueue(newJob(1000));
    await r.round();
    // fast: 1.0 s left of the long job + 0.1 s; slow: 0.3 s.
    const short = await r.enqueue(newJob(100));
    await r.round();
    assert.deepEqual(r.nodes.log(), [`${long.jobId}@fast`, `${short.jobId}@slow`]);
  });

  it("keeps a job queued for the busy fast node once its running job's elapsed time says it frees up sooner", async (t) => {
    const r = await rig(t, FAST_AND_SLOW);
    const long = await r.enqueue(newJob(1000));
    await r.round();
    r.clock.advance(950);
    // fast: 0.05 s left + 0.1 s = 0.15 s; slow: 0.3 s.
    const short = await r.enqueue(newJob(100));
    await r.round();
    assert.deepEqual(r.nodes.log(), [`${long.jobId}@fast`]);
    assert.equal((await r.repo.find(short.jobId))?.state, 'queued');
    (await r.nodes.callFor(long.jobId)).succeed();
    await r.nodes.callFor(short.jobId);
    assert.deepEqual(r.nodes.log(), [`${long.jobId}@fast`, `${short.jobId}@fast`]);
  });

  it('starts waiting jobs by priority (enterprise, pro, free), whatever their order in time', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    const first = await r.enqueue(newJob(10));
    await r.round();
    const free = await r.enqueue(newJob(10, { tier: 'free', priority: priorityOfTier('free') }));
    const enterprise = await r.enqueue(newJob(10, { tier: 'enterprise', priority: priorityOfTier('enterprise') }));
    const pro = await r.enqueue(newJob(10, { tier: 'pro', priority: priorityOfTier('pro') }));
    await r.round();
    for (const job of [first, enterprise, pro, free]) (await r.nodes.callFor(job.jobId)).succeed();
    assert.deepEqual(
      r.nodes.calls.map((c) => c.jobId),
      [first, enterprise, pro, free].map((j) => j.jobId),
    );
  });

  it('gives work only to ready nodes offering the voice: not a draining node, not one silent past its time-out', async (t) => {
    const r = await rig(t, {
      draining: { capacity: 4 },
      silent: { capacity: 4 },
      ready: { capacity: 4 },
      piper: { capacity: 4, engines: ['piper'] },
    });
    r.membership.heartbeat({ ...nodeStatusFixture('draining', { capacity: 4 }), state: NodeState.NODE_STATE_DRAINING });
    r.clock.advance(NODE_TIMEOUT_MS + 1);
    for (const nodeId of ['draining', 'ready', 'piper']) r.membership.heartbeat(r.membership.get(nodeId)!.status);
    const flite = await r.enqueue(newJob(10));
    const piper = await r.enqueue(newJob(10, { spec: specOf(10, 'piper:v') }));
    await r.round();
    assert.deepEqual(r.nodes.log().sort(), [`${flite.jobId}@ready`, `${piper.jobId}@piper`].sort());
  });
});

describe('dispatcher: claims', () => {
  it('claims a job before calling its node (running there, attempt 1, under this dispatcher), then stores its audio once', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    const job = await r.enqueue(newJob(10));
    await r.round();
    const call = await r.nodes.callFor(job.jobId);
    const running = await r.repo.find(job.jobId);
    assert.deepEqual([running?.state, running?.nodeId, running?.attempts], ['running', 'only', 1]);
    assert.deepEqual(await r.repo.listOrphans('another-runner', 3600), [], 'the runner is this live dispatcher');
    call.succeed(Buffer.from('RIFF the audio'));
    const done = await r.reached(job.jobId, 'completed');
    assert.equal(done.result?.sha256, createHash('sha256').update('RIFF the audio').digest('hex'));
    assert.equal(await readFile(join(r.dataDir, done.result!.path), 'utf8'), 'RIFF the audio');
    assert.deepEqual(await r.eventKinds(job.jobId), ['queued', 'running', 'completed']);
    await r.dispatcher.idle();
    assert.deepEqual(await r.queue.unacked(), [], 'the entry is acknowledged once the outcome is recorded');
  });

  it('drops the entry of a job another scheduler claimed first, without calling a node, and gives the slot to the next job', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    const lost = await r.enqueue(newJob(10));
    const next = await r.enqueue(newJob(10));
    assert.ok(await r.repo.claim(lost.jobId, 'node-elsewhere', 'other-scheduler'));
    await r.round();
    assert.deepEqual(r.nodes.log(), [`${next.jobId}@only`]);
    const after = await r.repo.find(lost.jobId);
    assert.deepEqual([after?.state, after?.nodeId, after?.attempts], ['running', 'node-elsewhere', 1]);
    assert.deepEqual((await r.queue.unacked()).map((e) => e.item), [encodeQueuedJob({ jobId: next.jobId, voice: 'flite:v', engine: '', characters: 10 })], 'only the running job keeps its entry');
  });

  it('runs a job queued twice once', async (t) => {
    const r = await rig(t, TWO_NODES);
    const job = await r.enqueue(newJob(10));
    await r.queue.add(encodeQueuedJob({ jobId: job.jobId, voice: job.spec.voice, engine: '', characters: 10 }), job.priority);
    await r.round();
    (await r.nodes.callFor(job.jobId)).succeed();
    await r.reached(job.jobId, 'completed');
    await r.round();
    assert.equal(r.nodes.calls.length, 1);
    assert.deepEqual(await r.queue.unacked(), []);
  });
});

describe('dispatcher: failures', () => {
  it('retries a job on another node when its node cannot be reached, and gives that node no new work until it reports', async (t) => {
    const r = await rig(t, TWO_NODES);
    const job = await r.enqueue(newJob(10));
    await r.round();
    const first = await r.nodes.callFor(job.jobId);
    first.fail(new TtsError('TTS_NO_NODE_AVAILABLE'));
    const second = await r.nodes.callFor(job.jobId, 2);
    assert.notEqual(second.nodeId, first.nodeId);
    assert.deepEqual(r.membership.ready().map((e) => e.status.nodeId), [second.nodeId], 'the unreachable node is suspect');
    second.succeed();
    const done = await r.reached(job.jobId, 'completed');
    assert.deepEqual([done.attempts, done.nodeId], [2, second.nodeId]);
    const events = await r.repo.events(job.jobId, 0, 100);
    assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'retrying', 'running', 'completed']);
    assert.equal(events[2]?.payload.error_code, 'JOB_NODE_LOST');
  });

  it('stops the call of a node that stops heart-beating and retries the job elsewhere', async (t) => {
    const r = await rig(t, TWO_NODES);
    const job = await r.enqueue(newJob(10));
    await r.round();
    const first = await r.nodes.callFor(job.jobId);
    const other = first.nodeId === 'a' ? 'b' : 'a';
    r.clock.advance(NODE_TIMEOUT_MS + 1);
    r.membership.heartbeat(r.membership.get(other)!.status);
    const second = await r.nodes.callFor(job.jobId, 2);
    assert.ok(first.signal.aborted);
    assert.equal(second.nodeId, other);
    second.succeed();
    await r.reached(job.jobId, 'completed');
    const retried = (await r.repo.events(job.jobId, 0, 100)).find((e) => e.kind === 'retrying');
    assert.equal(retried?.payload.error_code, 'JOB_NODE_LOST');
    assert.match(retried?.payload.error_message ?? '', new RegExp(`Node ${first.nodeId} was lost`));
  });

  it('completes a job whose node is lost after its audio arrived (no second attempt)', async (t) => {
    let release = (): void => undefined;
    const stored = new Promise<void>((resolve) => (release = resolve));
    /** Holds the audio's storing, so the node can be lost in between. */
    class HeldArtifacts extends ArtifactStore {
      override async save(audio: Uint8Array, extension: string): Promise<StoredArtifact> {
        await stored;
        return super.save(audio, extension);
      }
    }
    const r = await rig(t, TWO_NODES, (dataDir) => new HeldArtifacts(dataDir));
    const job = await r.enqueue(newJob(10));
    await r.round();
    const call = await r.nodes.callFor(job.jobId);
    call.succeed();
    r.clock.advance(NODE_TIMEOUT_MS + 1);
    r.membership.heartbeat(r.membership.get(call.nodeId === 'a' ? 'b' : 'a')!.status);
    await once(call.signal, 'abort'); // the watchdog found the node lost
    release();
    const done = await r.reached(job.jobId, 'completed');
    assert.deepEqual([done.attempts, done.nodeId], [1, call.nodeId]);
    await r.round();
    assert.equal(r.nodes.calls.length, 1);
  });

  it('fails a job with JOB_NODE_LOST once its attempts are used up', async (t) => {
    const r = await rig(t, TWO_NODES);
    const job = await r.enqueue(newJob(10, { maxAttempts: 2 }));
    await r.round();
    (await r.nodes.callFor(job.jobId)).fail(new TtsError('TTS_NO_NODE_AVAILABLE'));
    (await r.nodes.callFor(job.jobId, 2)).fail(new TtsError('TTS_NO_NODE_AVAILABLE'));
    const failed = await r.reached(job.jobId, 'failed');
    assert.deepEqual([failed.attempts, failed.errorCode], [2, 'JOB_NODE_LOST']);
    assert.deepEqual(await r.eventKinds(job.jobId), ['queued', 'running', 'retrying', 'running', 'failed']);
    for (const nodeId of ['a', 'b']) r.membership.heartbeat(r.membership.get(nodeId)!.status);
    await r.round();
    assert.equal(r.nodes.calls.length, 2);
    assert.deepEqual(await r.queue.unacked(), []);
  });

  it('retries a retryable engine failure with its own code on another node, and fails a non-retryable one at once', async (t) => {
    const r = await rig(t, TWO_NODES);
    const retried = await r.enqueue(newJob(10));
    await r.round();
    const first = await r.nodes.callFor(retried.jobId);
    first.fail(new TtsError('TTS_ENGINE_FAILED'));
    const second = await r.nodes.callFor(retried.jobId, 2);
    assert.notEqual(second.nodeId, first.nodeId, 'the node it failed on is avoided');
    assert.equal(r.membership.ready().length, 2, 'an engine failure is no lost node');
    const event = (await r.repo.events(retried.jobId, 0, 100)).find((e) => e.kind === 'retrying');
    assert.equal(event?.payload.error_code, 'TTS_ENGINE_FAILED');
    second.succeed();
    await r.reached(retried.jobId, 'completed');

    const refused = await r.enqueue(newJob(10));
    await r.round();
    (await r.nodes.callFor(refused.jobId)).fail(new TtsError('TTS_VOICE_NOT_FOUND'));
    const failed = await r.reached(refused.jobId, 'failed');
    assert.deepEqual([failed.attempts, failed.errorCode], [1, 'TTS_VOICE_NOT_FOUND']);
    await r.round();
    assert.equal(r.nodes.calls.filter((c) => c.jobId === refused.jobId).length, 1);
  });
});

describe('dispatcher: cancellation', () => {
  it("stops a cancelled job's call, does not retry it, and gives its slot to the next job", async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    const cancelled = await r.enqueue(newJob(10));
    const next = await r.enqueue(newJob(10));
    await r.round();
    const call = await r.nodes.callFor(cancelled.jobId);
    assert.equal(r.nodes.calls.length, 1, 'the next job waits for the slot');
    assert.equal((await r.repo.cancel(cancelled.jobId))?.changed, true);
    r.dispatcher.cancel(cancelled.jobId);
    assert.ok(call.signal.aborted);
    (await r.nodes.callFor(next.jobId)).succeed();
    await r.reached(next.jobId, 'completed');
    assert.deepEqual(await r.eventKinds(cancelled.jobId), ['queued', 'running', 'cancelled']);
    assert.equal(r.nodes.calls.filter((c) => c.jobId === cancelled.jobId).length, 1);
    await r.dispatcher.idle();
    assert.deepEqual(await r.queue.unacked(), []);
  });
});

describe('dispatcher: idle fast path', () => {
  it('calls a free node as a job is submitted, while its row is still being written', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    const job = newJob(10);
    let write = (): void => undefined;
    const writing = new Promise<void>((resolve) => (write = resolve));
    const started = r.dispatcher.startNow(job, async (nodeId) => {
      await writing;
      return r.repo.insertRunning(job, nodeId, r.dispatcher.runner);
    });
    const call = await r.nodes.callFor(job.jobId);
    assert.equal(await r.repo.find(job.jobId), null, 'the node started before the row exists');
    write();
    const record = await started;
    assert.deepEqual([record?.state, record?.nodeId, record?.attempts], ['running', 'only', 1]);
    call.succeed();
    await r.reached(job.jobId, 'completed');
  });

  it('leaves a job to the queue while another job waits in it, or when no node has a free slot', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    let recorded = 0;
    const record = (job: NewJob) => (nodeId: string) => {
      recorded++;
      return r.repo.insertRunning(job, nodeId, r.dispatcher.runner);
    };
    r.dispatcher.noteQueued();
    const behindTheQueue = newJob(10);
    assert.equal(await r.dispatcher.startNow(behindTheQueue, record(behindTheQueue)), undefined, 'a job is queued: it goes first');
    await r.round(); // the queue is read empty again
    const busy = newJob(10);
    assert.ok(await r.dispatcher.startNow(busy, record(busy)));
    const noSlot = newJob(10);
    assert.equal(await r.dispatcher.startNow(noSlot, record(noSlot)), undefined, 'the only slot is taken');
    assert.equal(recorded, 1);
    assert.deepEqual(r.nodes.log(), [`${busy.jobId}@only`]);
  });

  it('stops the synthesis and rejects when the row cannot be written', async (t) => {
    const r = await rig(t, { only: { capacity: 1 } });
    const job = newJob(10);
    const refused = new Error('the database refused the row');
    const started = r.dispatcher.startNow(job, () => Promise.reject(refused));
    await assert.rejects(started, refused);
    const call = await r.nodes.callFor(job.jobId);
    assert.ok(call.signal.aborted);
    assert.equal(await r.repo.find(job.jobId), null);
  });
});
