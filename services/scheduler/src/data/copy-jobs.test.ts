import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Database } from '@tts/common/data';
import { databaseBackends } from '@tts/common/testing';
import { copyJobs } from './copy-jobs.js';
import { JobRepository, type NewJob } from './jobs.js';
import { SCHEDULER_MIGRATIONS } from './migrations/index.js';
import { jobSpecFixture, newJobFixture } from './testing.js';

const newJob = (jobId: string, text: string): NewJob => newJobFixture({ jobId, spec: jobSpecFixture({ text, speed: 1.25 }) });

/** Every job and event, each row as JSON text (exact values, whatever the column types). */
async function dump(db: Database): Promise<string[]> {
  const jobs = await db.query<{ j: string }>('SELECT row_to_json(j)::text AS j FROM jobs j ORDER BY job_id');
  const events = await db.query<{ e: string }>('SELECT row_to_json(e)::text AS e FROM job_events e ORDER BY job_id, event_id');
  return [...jobs.map((r) => r.j), ...events.map((r) => r.e)];
}

for (const backend of databaseBackends(SCHEDULER_MIGRATIONS)) {
  describe(`copyJobs (${backend.name})`, () => {
    after(() => backend.close());

    it('copies every job and event exactly, in batches, and again without duplicates', async (t) => {
      const from = await backend.open(t);
      const to = await backend.open(t);
      const repo = new JobRepository(from);
      // 230 jobs: more than two batches; some moved on (running, failed) so they carry several events.
      for (let i = 0; i < 230; i++) await repo.insert(newJob(`job-${String(i).padStart(3, '0')}`, `Job number ${i}. ${'é'.repeat(i % 7)}`));
      await repo.claim('job-001', 'node-a', 'incarnation-a');
      await repo.fail('job-002', 'TTS_ENGINE_FAILED', 'it broke');
      await new JobRepository(to).insert(newJob('job-999', 'Already in the target.'));

      assert.equal(await copyJobs(from, to), 230);
      const source = await dump(from);
      const target = await dump(to);
      assert.equal(target.length, source.length + 2, 'every row plus the target own job and its event');
      for (const row of source) assert.ok(target.includes(row), `copied exactly: ${row.slice(0, 80)}`);

      assert.equal(await copyJobs(from, to), 230, 'a second copy (an interrupted one run again)');
      assert.deepEqual(await dump(to), target, 'adds nothing');
    });

    it('copies nothing from an empty store', async (t) => {
      const to = await backend.open(t);
      assert.equal(await copyJobs(await backend.open(t), to), 0);
      assert.deepEqual(await dump(to), []);
    });
  });
}
