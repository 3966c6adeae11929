import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DatabaseError, type Database } from '@tts/common/data';
import { databaseBackends } from '@tts/common/testing';
import { FACADE_MIGRATIONS, SQLSTATE_APPEND_ONLY } from './migrations/index.js';
import { UsageRepository, type UsageEventInput } from './usage.js';

const event = (overrides: Partial<UsageEventInput>): UsageEventInput => ({
  requestId: null,
  keyId: 'key_a',
  authMethod: 'api_key',
  endpoint: 'POST /api/tts',
  tier: 'free',
  characters: 0,
  audioSeconds: 0,
  status: 'ok',
  httpStatus: 200,
  errorCode: null,
  latencyMs: 100,
  quotaStage: 'ok',
  ...overrides,
});

async function seed(db: Database): Promise<UsageRepository> {
  const repo = new UsageRepository(db);
  await db.query("INSERT INTO api_keys (key_id, prefix, secret_hash, name, tier) VALUES ('key_a', 'tts_key_a', repeat('a', 64), 'Alpha', 'free')");
  for (const e of [
    event({ at: new Date('2024-05-01T10:00:00Z'), characters: 100, audioSeconds: 2, latencyMs: 100 }),
    event({ at: new Date('2024-05-01T23:59:59Z'), characters: 50, audioSeconds: 1, latencyMs: 300, endpoint: 'POST /v1/audio/speech' }),
    event({ at: new Date('2024-05-02T00:00:00Z'), characters: 70, status: 'error', httpStatus: 503, errorCode: 'TTS_ENGINE_FAILED', latencyMs: 50 }),
    event({ at: new Date('2024-05-02T12:00:00Z'), keyId: 'key_b', tier: 'pro', characters: 1000, audioSeconds: 20, latencyMs: 200 }),
    event({ at: new Date('2024-05-02T13:00:00Z'), keyId: null, authMethod: 'challenge', tier: null, endpoint: 'POST /api/web/jobs/tts', characters: 30, audioSeconds: 1 }),
    event({ at: new Date('2024-06-01T08:00:00Z'), characters: 10, audioSeconds: 0.5 }),
  ]) {
    await repo.record(e);
  }
  return repo;
}

const all = { dayFrom: null, dayTo: null, keyId: null, endpoint: null, limit: 500 };
const may = { ...all, dayFrom: '2024-05-01', dayTo: '2024-05-31' };

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`usage repository (${backend.name})`, () => {
    after(() => backend.close());

    it('rolls successful characters up per key and UTC day, for quota checks', async (t) => {
      const repo = await seed(await backend.open(t));
      assert.deepEqual(await repo.charactersUsed('key_a', '2024-05-01', '2024-05-01'), { day: 150, month: 150 });
      assert.deepEqual(await repo.charactersUsed('key_a', '2024-05-02', '2024-05-01'), { day: 0, month: 150 }, 'the failed request is not counted');
      assert.deepEqual(await repo.charactersUsed('key_a', '2024-06-01', '2024-06-01'), { day: 10, month: 10 });
      assert.deepEqual(await repo.charactersUsed('nobody', '2024-06-01', '2024-06-01'), { day: 0, month: 0 });
      const byKey = await repo.charactersUsedByKey('2024-05-02', '2024-05-01');
      assert.deepEqual(Object.fromEntries(byKey), { key_a: { day: 0, month: 150 }, key_b: { day: 1000, month: 1000 } });
    });

    it('summarizes per day, key and endpoint with totals, newest day first', async (t) => {
      const repo = await seed(await backend.open(t));
      const s = await repo.summary(may);
      assert.deepEqual(
        s.rows.map((r) => [r.day, r.keyId, r.endpoint, r.requests, r.characters]),
        [
          ['2024-05-02', 'key_a', 'POST /api/tts', 1, 0],
          ['2024-05-02', 'key_b', 'POST /api/tts', 1, 1000],
          ['2024-05-02', null, 'POST /api/web/jobs/tts', 1, 30],
          ['2024-05-01', 'key_a', 'POST /api/tts', 1, 100],
          ['2024-05-01', 'key_a', 'POST /v1/audio/speech', 1, 50],
        ],
      );
      assert.equal(s.totalGroups, 5);
      assert.deepEqual(s.totals, { requests: 5, okRequests: 4, failedRequests: 1, characters: 1180, audioSeconds: 24 });
      const failed = s.rows[0]!;
      assert.equal(failed.failedRequests, 1);
      assert.equal(failed.p50LatencyMs, 50);
    });

    it('filters the summary by day range (inclusive, UTC), key and endpoint, and applies the limit', async (t) => {
      const repo = await seed(await backend.open(t));
      const day2 = await repo.summary({ ...all, dayFrom: '2024-05-02', dayTo: '2024-05-02' });
      assert.equal(day2.totals.requests, 3, '23:59:59 of the day before is out, 00:00:00 is in');
      const keyA = await repo.summary({ ...all, keyId: 'key_a' });
      assert.equal(keyA.totals.requests, 4);
      assert.equal(keyA.totals.characters, 160);
      const speech = await repo.summary({ ...all, endpoint: 'POST /v1/audio/speech' });
      assert.deepEqual(speech.rows.map((r) => r.characters), [50]);
      const fromJune = await repo.summary({ ...all, dayFrom: '2024-06-01' });
      assert.equal(fromJune.totals.characters, 10);
      const untilMay = await repo.summary({ ...all, dayTo: '2024-05-31' });
      assert.equal(untilMay.totals.requests, 5);
      const limited = await repo.summary({ ...may, limit: 2 });
      assert.equal(limited.rows.length, 2);
      assert.equal(limited.totalGroups, 5);
      assert.equal(limited.totals.requests, 5, 'totals ignore the limit');
      const empty = await repo.summary({ ...all, keyId: 'nobody' });
      assert.deepEqual(empty, { rows: [], totalGroups: 0, totals: { requests: 0, okRequests: 0, failedRequests: 0, characters: 0, audioSeconds: 0 } });
    });

    it('reports cost inputs per key and tier, leaving key-less usage out', async (t) => {
      const repo = await seed(await backend.open(t));
      const c = await repo.costByKeyAndTier({ dayFrom: '2024-05-01', dayTo: '2024-05-31', keyId: null, tier: null, limit: 500 });
      assert.deepEqual(c.rows, [
        { keyId: 'key_b', keyName: null, tier: 'pro', requests: 1, characters: 1000, audioSeconds: 20 },
        { keyId: 'key_a', keyName: 'Alpha', tier: 'free', requests: 3, characters: 150, audioSeconds: 3 },
      ]);
      assert.equal(c.totalGroups, 2);
      assert.deepEqual(c.totalsByTier, [
        { tier: 'free', requests: 3, characters: 150, audioSeconds: 3 },
        { tier: 'pro', requests: 1, characters: 1000, audioSeconds: 20 },
      ]);
      const pro = await repo.costByKeyAndTier({ dayFrom: null, dayTo: null, keyId: null, tier: 'pro', limit: 500 });
      assert.deepEqual(pro.rows.map((r) => r.keyId), ['key_b']);
      const oneKey = await repo.costByKeyAndTier({ dayFrom: null, dayTo: null, keyId: 'key_a', tier: null, limit: 1 });
      assert.deepEqual(oneKey.rows.map((r) => r.characters), [160]);
    });

    it('keeps usage events append-only: UPDATE, DELETE and TRUNCATE are rejected', async (t) => {
      const db = await backend.open(t);
      await seed(db);
      const appendOnly = (e: unknown): boolean => e instanceof DatabaseError && e.sqlState === SQLSTATE_APPEND_ONLY && /append-only/.test(e.message);
      await assert.rejects(db.query('UPDATE usage_events SET characters = 0'), appendOnly);
      await assert.rejects(db.query('DELETE FROM usage_events'), appendOnly);
      await assert.rejects(db.query('TRUNCATE usage_events'), appendOnly);
      assert.equal((await db.query('SELECT id FROM usage_events')).length, 6);
    });
  });
}
