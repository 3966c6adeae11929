import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DatabaseError } from '@tts/common/data';
import { databaseBackends } from '@tts/common/testing';
import { JobRepository, type JobResultFields, type NewJob } from './jobs.js';
import { SCHEDULER_MIGRATIONS } from './migrations/index.js';
import { SchedulerLeaseRepository } from './scheduler-leases.js';
import { jobSpecFixture, newJobFixture } from './testing.js';

/** The scheduler incarnation the tests dispatch as. */
const RUNNER = 'incarnation-a';

const newJob = (overrides: Partial<NewJob> = {}): NewJob => newJobFixture({ requestId: 'req-1', spec: jobSpecFixture({ speed: 1.25 }), ...overrides });

const result: JobResultFields = {
  sha256: 'a'.repeat(64),
  path: `artifacts/${'a'.repeat(64)}.wav`,
  bytes: 1234,
  audioSeconds: 0.75,
  format: 'wav',
  sampleRate: 16000,
  contentType: 'audio/wav',
  voice: 'flite:slt',
  engine: 'flite',
};

for (const backend of databaseBackends(SCHEDULER_MIGRATIONS)) {
  describe(`job repository (${backend.name})`, () => {
    after(() => backend.close());

    it('keeps the lexicon a job was submitted with (queued or dispatched at once); none when it had none', async (t) => {
      const repo = new JobRepository(await backend.open(t));
      const lexicon = [{ word: 'tomato', ipa: 'təˈmɑːtoʊ', caseSensitive: false }, { word: 'Nginx', respelling: 'engine ex', caseSensitive: true }];
      const queued = await repo.insert(newJob({ jobId: 'job-lex-a', spec: { ...newJob().spec, lexicon } }));
      assert.deepEqual(queued.spec.lexicon, lexicon);
      const running = await repo.insertRunning(newJob({ jobId: 'job-lex-b', spec: { ...newJob().spec, lexicon } }), 'node-1', RUNNER);
      assert.deepEqual((await repo.find(running.jobId))?.spec.lexicon, lexicon);
      assert.equal((await repo.insert(newJob({ jobId: 'job-lex-c' }))).spec.lexicon, undefined);
    });

    it('records a job as queued with event 1 and reads it back', async (t) => {
      const repo = new JobRepository(await backend.open(t));
      const job = await repo.insert(newJob({ jobId: 'job-a' }));
      assert.equal(job.state, 'queued');
      assert.equal(job.lastEventId, 1);
      assert.equal(job.characters, 'Hello there.'.length);
      assert.equal(job.spec.speed, 1.25);
      assert.equal(job.spec.consentConfirmed, true);
      assert.equal(job.result, null);
      assert.ok(job.createdAt instanceof Date);
      assert.deepEqual(await repo.find('job-a'), job);
      assert.equal(await repo.find('nope'), null);
      const events = await repo.events('job-a', 0, 10);
      assert.deepEqual(events.map((e) => [e.eventId, e.kind, e.payload.state, e.payload.progress]), [[1, 'queued', 'queued', 0]]);
      await assert.rejects(repo.insert(newJob({ jobId: 'job-a' })), (e: unknown) => e instanceof DatabaseError && e.sqlState === '23505');
    });

    it('walks queued -> running -> completed with increasing event ids; a second completion changes nothing', async (t) => {
      const repo = new JobRepository(await backend.open(t));
      const { jobId } = await repo.insert(newJob());
      const running = await repo.claim(jobId, 'node-1', RUNNER);
      assert.equal(running?.state, 'running');
      assert.equal(running?.attempts, 1);
      assert.equal(running?.nodeId, 'node-1');
      assert.ok(running?.startedAt instanceof Date);
      assert.equal(await repo.claim(jobId, 'node-2', RUNNER), null, 'a running job cannot be claimed again');

      const first = await repo.complete(jobId, result, 'node-1');
      assert.equal(first?.changed, true);
      assert.equal(first?.job.state, 'completed');
      assert.equal(first?.job.progress, 1);
      assert.deepEqual(first?.job.result, result);
      assert.ok(first?.job.finishedAt instanceof Date);
      const again = await repo.complete(jobId, { ...result, sha256: 'b'.repeat(64) }, 'node-2');
      assert.equal(again?.changed, false);
      assert.deepEqual(again?.job.result, result, 'the first result stays');
      assert.equal(again?.job.nodeId, 'node-1');

      const events = await repo.events(jobId, 0, 100);
      assert.deepEqual(events.map((e) => e.eventId), [1, 2, 3]);
      assert.deepEqual(events.map((e) => e.kind), ['queued', 'running', 'completed']);
      assert.deepEqual(events[1]?.payload, { state: 'running', progress: 0, node_id: 'node-1', attempt: 1 });
      assert.equal(events[2]?.payload.progress, 1);
      assert.ok(events.every((e, i) => i === 0 || e.at.getTime() >= events[i - 1]!.at.getTime()));
      assert.deepEqual((await repo.events(jobId, 1, 1)).map((e) => e.eventId), [2], 'after_event_id and limit page the events');
    });

    it('records a job dispatched at submission as running with its queued and running events', async (t) => {
      const repo = new JobRepository(await backend.open(t));
      const job = await repo.insertRunning(newJob({ jobId: 'job-fast' }), 'node-1', RUNNER);
      assert.deepEqual([job.state, job.attempts, job.nodeId, job.lastEventId], ['running', 1, 'node-1', 2]);
      assert.ok(job.startedAt instanceof Date);
      const events = await repo.events('job-fast', 0, 10);
      assert.deepEqual(events.map((e) => [e.eventId, e.kind]), [[1, 'queued'], [2, 'running']]);
      assert.deepEqual(events[1]?.payload, { state: 'running', progress: 0, node_id: 'node-1', attempt: 1 });
      assert.ok(events[0]!.at.getTime() <= events[1]!.at.getTime());
      assert.equal((await repo.complete('job-fast', result, 'node-1'))?.job.lastEventId, 3);
    });

    it('keeps the word timings of a completed job, claimed or dispatched at submission', async (t) => {
      const repo = new JobRepository(await backend.open(t));
      const words = [{ word: 'Hello', start: 0.08, end: 0.41234567 }, { word: 'there.', start: 0.41234567, end: 0.9 }];
      const { jobId } = await repo.insert(newJob());
      await repo.claim(jobId, 'node-1', RUNNER);
      assert.deepEqual((await repo.complete(jobId, { ...result, words }, 'node-1'))?.job.result?.words, words);
      assert.deepEqual((await repo.find(jobId))?.result?.words, words);
      await repo.insertRunning(newJob({ jobId: 'job-fast-words' }), 'node-1', RUNNER);
      await repo.complete('job-fast-words', { ...result, words }, 'node-1');
      assert.deepEqual((await repo.find('job-fast-words'))?.result?.words, words);
      const { jobId: plain } = await repo.insert(newJob());
      await repo.claim(plain, 'node-1', RUNNER);
      await repo.complete(plain, { ...result, words: [] }, 'node-1');
      assert.equal((await repo.find(plain))?.result?.words, undefined, 'no timings: none stored');
    });

    it('retries a lost attempt until attempts run out, then fails with the code', async (t) => {
      const repo = new JobRepository(await backend.open(t));
      const { jobId } = await repo.insert(newJob({ maxAttempts: 2 }));
      await repo.claim(jobId, 'node-1', RUNNER);
      assert.equal(await repo.retryOrFail(jobId, 2, 'JOB_NODE_LOST', 'stale attempt'), null, 'only the current attempt can fail');
      const retrying = await repo.retryOrFail(jobId, 1, 'JOB_NODE_LOST', 'node-1 stopped');
      assert.equal(retrying?.state, 'retrying');
      assert.equal(retrying?.errorCode, 'JOB_NODE_LOST');
      const second = await repo.claim(jobId, 'node-2', RUNNER);
      assert.equal(second?.attempts, 2);
      assert.equal(second?.errorCode, null, 'a new attempt clears the previous error');
      const failed = await repo.retryOrFail(jobId, 2, 'JOB_NODE_LOST', 'node-2 stopped');
      assert.equal(failed?.state, 'failed');
      assert.ok(failed?.finishedAt instanceof Date);
      assert.equal(await repo.claim(jobId, 'node-3', RUNNER), null);
      const kinds = (await repo.events(jobId, 0, 100)).map((e) => `${e.kind}:${e.payload.node_id ?? ''}:${e.payload.error_code ?? ''}`);
      assert.deepEqual(kinds, ['queued::', 'running:node-1:', 'retrying:node-1:JOB_NODE_LOST', 'running:node-2:', 'failed:node-2:JOB_NODE_LOST']);
    });

    it('requeues the running jobs of schedulers without a live lease, never a live one\'s, and lists waiting jobs by priority', async (t) => {
      const db = await backend.open(t);
      const repo = new JobRepository(db);
      const leases = new SchedulerLeaseRepository(db);
      await leases.acquire('scheduler-a', RUNNER, 60_000);
      await leases.acquire('scheduler-b', 'incarnation-b', 60_000);
      const low = await repo.insert(newJob({ priority: 3, tier: 'web', ownerKind: 'web' }));
      const high = await repo.insert(newJob({ priority: 0, tier: 'enterprise' }));
      const running = await repo.insert(newJob({ priority: 2 }));
      const exhausted = await repo.insert(newJob({ priority: 2, maxAttempts: 1 }));
      const onB = await repo.insert(newJob({ priority: 2 }));
      await repo.claim(running.jobId, 'node-1', RUNNER);
      await repo.claim(exhausted.jobId, 'node-1', RUNNER);
      await repo.claim(onB.jobId, 'node-2', 'incarnation-b');
      assert.deepEqual(await repo.listOrphans(RUNNER, 3600), [], 'nothing has been running for an hour, and B is alive');
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual((await repo.listOrphans(RUNNER, 0.01)).map((j) => j.jobId).sort(), [running.jobId, exhausted.jobId].sort(), "only A's own idle jobs");
      assert.deepEqual(await repo.requeueAbandoned('JOB_NODE_LOST', 'scheduler restarted'), [], 'both schedulers hold live leases');

      // Scheduler A restarts: its new incarnation replaces the old one's lease.
      await leases.acquire('scheduler-a', 'incarnation-a2', 60_000);
      assert.deepEqual((await repo.listOrphans('incarnation-a2', 3600)).map((j) => [j.jobId, j.runner]).sort(), [[running.jobId, RUNNER], [exhausted.jobId, RUNNER]].sort());
      const changed = await repo.requeueAbandoned('JOB_NODE_LOST', 'scheduler restarted');
      assert.deepEqual(changed.map((j) => [j.jobId, j.state]).sort(), [[exhausted.jobId, 'failed'], [running.jobId, 'retrying']].sort());
      assert.equal((await repo.find(onB.jobId))?.state, 'running', "B's job is left alone");
      const waiting = await repo.listWaiting();
      assert.deepEqual(waiting.map((w) => w.jobId), [high.jobId, running.jobId, low.jobId]);
      assert.deepEqual(await repo.counts(), { waiting: 3, running: 1, waitingCharacters: 3 * 'Hello there.'.length });

      // B stops and gives its lease up: its job is abandoned now.
      await leases.release('scheduler-b', 'incarnation-b');
      assert.deepEqual((await leases.live()).map((l) => l.schedulerId), ['scheduler-a']);
      assert.deepEqual((await repo.listOrphans('incarnation-a2', 3600)).map((j) => j.jobId), [onB.jobId]);
    });

    it('fences outcomes: a scheduler whose job was taken over records nothing (completion, failure, retry)', async (t) => {
      const db = await backend.open(t);
      const repo = new JobRepository(db);
      const leases = new SchedulerLeaseRepository(db);
      await leases.acquire('scheduler-a', RUNNER, 60_000);
      const { jobId } = await repo.insert(newJob({ maxAttempts: 3 }));
      await repo.claim(jobId, 'node-1', RUNNER);
      // A's lease lapses (paused, cut off); B requeues the job and runs attempt 2.
      await leases.acquire('scheduler-a', 'incarnation-a-new', 60_000);
      assert.equal((await repo.requeueAbandoned('JOB_NODE_LOST', 'lease lapsed')).length, 1);
      await repo.claim(jobId, 'node-2', 'incarnation-b');
      const late = await repo.complete(jobId, result, 'node-1', { runner: RUNNER, attempt: 1 });
      assert.equal(late?.changed, false, "the deposed scheduler's result is not recorded");
      assert.equal(late?.job.state, 'running');
      assert.equal((await repo.fail(jobId, 'TTS_ENGINE_FAILED', 'x', { runner: RUNNER, attempt: 1 }))?.changed, false);
      assert.equal(await repo.retryOrFail(jobId, 2, 'JOB_NODE_LOST', 'x', RUNNER), null, 'the current attempt belongs to B');
      const done = await repo.complete(jobId, { ...result, sha256: 'c'.repeat(64) }, 'node-2', { runner: 'incarnation-b', attempt: 2 });
      assert.deepEqual([done?.changed, done?.job.state, done?.job.result?.sha256, done?.job.nodeId], [true, 'completed', 'c'.repeat(64), 'node-2']);
      assert.equal(await leases.renew('scheduler-a', RUNNER, 60_000), false, 'the old incarnation learns it lost the lease');
      assert.equal(await leases.renew('scheduler-a', 'incarnation-a-new', 60_000), true);
    });

    it('cancels an unfinished job once; fail() does not touch a finished job', async (t) => {
      const repo = new JobRepository(await backend.open(t));
      const { jobId } = await repo.insert(newJob());
      const cancelled = await repo.cancel(jobId);
      assert.deepEqual([cancelled?.changed, cancelled?.job.state], [true, 'cancelled']);
      const twice = await repo.cancel(jobId);
      assert.deepEqual([twice?.changed, twice?.job.state], [false, 'cancelled']);
      assert.equal((await repo.fail(jobId, 'TTS_ENGINE_FAILED', 'x'))?.changed, false);
      assert.equal((await repo.complete(jobId, result))?.changed, false, 'a cancelled job is not completed by a late result');
      assert.equal(await repo.cancel('missing'), null);
      const other = await repo.insert(newJob());
      const failed = await repo.fail(other.jobId, 'TTS_VOICE_NOT_FOUND', 'Voice "x" does not exist.');
      assert.deepEqual([failed?.job.state, failed?.job.errorCode], ['failed', 'TTS_VOICE_NOT_FOUND']);
    });

    it("lists an owner's jobs most recent first, limited", async (t) => {
      const repo = new JobRepository(await backend.open(t));
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await repo.insert(newJob({ ownerId: 'web:abc', ownerKind: 'web', tier: 'web', priority: 3 }))).jobId);
      await repo.insert(newJob({ ownerId: 'someone-else' }));
      const list = await repo.listByOwner('web:abc', 3);
      assert.deepEqual(list.map((j) => j.jobId), ids.slice(1).reverse());
      assert.ok(list.every((j) => j.ownerKind === 'web'));
    });

    it('keeps event ids unique and gap-free under concurrent transitions of one job', async (t) => {
      const db = await backend.open(t);
      const repo = new JobRepository(db);
      const { jobId } = await repo.insert(newJob());
      await repo.claim(jobId, 'node-1', RUNNER);
      const completions = await Promise.all([
        ...Array.from({ length: 6 }, () => repo.complete(jobId, result, 'node-1')),
        repo.cancel(jobId),
        repo.fail(jobId, 'TTS_ENGINE_FAILED', 'x'),
      ]);
      assert.equal(completions.filter((c) => c?.changed).length, 1, 'exactly one terminal transition applies');
      const events = await repo.events(jobId, 0, 100);
      assert.deepEqual(events.map((e) => e.eventId), events.map((_, i) => i + 1));
      assert.equal(events.length, 3, 'queued, running and one terminal event');
      assert.ok(['completed', 'cancelled', 'failed'].includes(events.at(-1)!.kind));
    });
  });
}
