import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DatabaseError, type Database } from '@tts/common/data';
import { databaseBackends } from '@tts/common/testing';
import { AuditRepository, type ConsentInput, type JobAccessFilter, type JobAccessInput } from './audits.js';
import { FACADE_MIGRATIONS, SQLSTATE_APPEND_ONLY } from './migrations/index.js';

const access = (o: Partial<JobAccessInput>): JobAccessInput => ({
  requestId: 'req',
  endpoint: 'GET /api/jobs/{job_id}',
  jobId: 'job1',
  requesterKind: 'api_key',
  requesterKeyId: 'owner',
  ownerKeyId: 'owner',
  allowed: true,
  reason: 'owner',
  ...o,
});

const consent = (o: Partial<ConsentInput>): ConsentInput => ({
  requestId: 'req',
  endpoint: 'POST /api/tts',
  mode: 'auto',
  authMethod: 'api_key',
  keyId: 'owner',
  consentConfirmed: true,
  outcome: 'ok',
  errorCode: null,
  ...o,
});

async function seed(db: Database): Promise<AuditRepository> {
  const repo = new AuditRepository(db);
  await repo.recordJobAccess(access({ at: new Date('2024-05-01T09:00:00Z') }));
  await repo.recordJobAccess(access({ at: new Date('2024-05-02T09:00:00Z'), requesterKeyId: 'intruder', allowed: false, reason: 'not_owner' }));
  await repo.recordJobAccess(access({ at: new Date('2024-05-03T09:00:00Z'), endpoint: 'GET /api/jobs/{job_id}/audio', requesterKeyId: 'other', ownerKeyId: 'other', jobId: 'job2' }));
  await repo.recordConsent(consent({ at: new Date('2024-05-01T09:00:00Z') }));
  await repo.recordConsent(consent({ at: new Date('2024-05-02T09:00:00Z'), consentConfirmed: null, outcome: 'refused', errorCode: 'VALIDATION_FAILED' }));
  await repo.recordConsent(consent({ at: new Date('2024-05-03T09:00:00Z'), endpoint: 'POST /v1/audio/speech', mode: null, outcome: 'error', errorCode: 'TTS_ENGINE_FAILED' }));
  return repo;
}

const noFilter = { dayFrom: null, dayTo: null, endpoint: null, limit: 500 };

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`audit repository (${backend.name})`, () => {
    after(() => backend.close());

    it('lists job accesses newest first with every field', async (t) => {
      const repo = await seed(await backend.open(t));
      const page = await repo.listJobAccess({ ...noFilter, requesterKeyId: null, ownerKeyId: null, onlyDenied: false });
      assert.equal(page.total, 3);
      assert.deepEqual(page.records.map((r) => r.jobId), ['job2', 'job1', 'job1']);
      const denied = page.records[1]!;
      assert.equal(denied.allowed, false);
      assert.equal(denied.reason, 'not_owner');
      assert.equal(denied.requesterKeyId, 'intruder');
      assert.equal(denied.ownerKeyId, 'owner');
      assert.equal(denied.requesterKind, 'api_key');
      assert.equal(denied.createdAt.toISOString(), '2024-05-02T09:00:00.000Z');
      assert.equal(typeof denied.id, 'number');
    });

    it('filters job accesses by day range, endpoint, requester, owner and only_denied', async (t) => {
      const repo = await seed(await backend.open(t));
      const base: JobAccessFilter = { ...noFilter, requesterKeyId: null, ownerKeyId: null, onlyDenied: false };
      const count = async (f: Partial<JobAccessFilter>): Promise<number> => (await repo.listJobAccess({ ...base, ...f })).records.length;
      assert.equal(await count({ dayFrom: '2024-05-02', dayTo: '2024-05-02' }), 1);
      assert.equal(await count({ dayFrom: '2024-05-02' }), 2);
      assert.equal(await count({ endpoint: 'GET /api/jobs/{job_id}/audio' }), 1);
      assert.equal(await count({ requesterKeyId: 'intruder' }), 1);
      assert.equal(await count({ ownerKeyId: 'owner' }), 2);
      assert.equal(await count({ onlyDenied: true }), 1);
      const limited = await repo.listJobAccess({ ...base, limit: 1 });
      assert.equal(limited.records.length, 1);
      assert.equal(limited.total, 3);
    });

    it('lists and filters consent records, only_failures keeping refused and failed ones', async (t) => {
      const repo = await seed(await backend.open(t));
      const base = { ...noFilter, mode: null, onlyFailures: false };
      const all = await repo.listConsent(base);
      assert.deepEqual(all.records.map((r) => r.outcome), ['error', 'refused', 'ok']);
      assert.equal(all.records[1]!.consentConfirmed, null);
      assert.equal(all.records[2]!.consentConfirmed, true);
      assert.equal(all.records[0]!.errorCode, 'TTS_ENGINE_FAILED');
      assert.deepEqual((await repo.listConsent({ ...base, onlyFailures: true })).records.map((r) => r.outcome), ['error', 'refused']);
      assert.equal((await repo.listConsent({ ...base, mode: 'auto' })).total, 2);
      assert.equal((await repo.listConsent({ ...base, endpoint: 'POST /v1/audio/speech' })).total, 1);
      assert.equal((await repo.listConsent({ ...base, dayTo: '2024-05-01' })).total, 1);
    });

    it('keeps both audits append-only: UPDATE, DELETE and TRUNCATE are rejected', async (t) => {
      const db = await backend.open(t);
      await seed(db);
      const appendOnly = (e: unknown): boolean => e instanceof DatabaseError && e.sqlState === SQLSTATE_APPEND_ONLY;
      for (const table of ['job_access_audit', 'consent_audit']) {
        await assert.rejects(db.query(`UPDATE ${table} SET endpoint = 'x'`), appendOnly, `${table} UPDATE`);
        await assert.rejects(db.query(`DELETE FROM ${table} WHERE id > 0`), appendOnly, `${table} DELETE`);
        await assert.rejects(db.query(`TRUNCATE ${table}`), appendOnly, `${table} TRUNCATE`);
        assert.equal((await db.query(`SELECT id FROM ${table}`)).length, 3);
      }
    });
  });
}
