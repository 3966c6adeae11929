import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { databaseBackends } from '@tts/common/testing';
import { FACADE_MIGRATIONS } from './migrations/index.js';
import { SloRepository, type SliRow } from './slo.js';

const T0 = new Date('2024-05-01T12:00:00Z');
const at = (secondsBefore: number): Date => new Date(T0.getTime() - secondsBefore * 1000);
const row = (over: Partial<SliRow>): SliRow => ({ at: at(10), endpoint: 'POST /api/tts', status: 200, ok: true, latencyMs: 100, errorCode: null, ...over });
const thresholds = { byEndpoint: { 'POST /api/tts': 250 }, defaultMs: 50 };

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`SLO repository (${backend.name})`, () => {
    after(() => backend.close());

    it('aggregates a window per endpoint and overall: counts, slow requests and percentiles of the served ones', async (t) => {
      const repo = new SloRepository(await backend.open(t));
      await repo.insertMany([
        ...[100, 200, 300, 400].map((latencyMs) => row({ latencyMs })),
        row({ status: 503, ok: false, latencyMs: 5, errorCode: 'TTS_NO_NODE_AVAILABLE' }),
        row({ status: 422, latencyMs: 1, errorCode: 'VALIDATION_FAILED' }),
        row({ endpoint: 'GET /api/health', latencyMs: 60 }),
        row({ at: at(3600), latencyMs: 9999 }), // outside the window
      ]);
      const rows = await repo.windowAggregates(at(600), T0, null, thresholds);
      assert.deepEqual(rows.map((r) => r.endpoint), [null, 'GET /api/health', 'POST /api/tts']);
      const tts = rows.find((r) => r.endpoint === 'POST /api/tts')!;
      assert.deepEqual([tts.requests, tts.errors, tts.served, tts.slow], [6, 1, 5, 2]);
      // percentile_cont over 1, 100, 200, 300, 400 (the failure is not a served request).
      assert.equal(tts.p50Ms, 200);
      assert.ok(Math.abs(tts.p95Ms! - 380) < 1e-9);
      assert.ok(Math.abs(tts.p99Ms! - 396) < 1e-9);
      const overall = rows.find((r) => r.endpoint === null)!;
      assert.deepEqual([overall.requests, overall.errors, overall.served, overall.slow], [7, 1, 6, 3], 'each request against its own endpoint threshold');
      const one = await repo.windowAggregates(at(600), T0, 'GET /api/health', thresholds);
      assert.deepEqual(one.map((r) => [r.endpoint, r.requests]), [[null, 1], ['GET /api/health', 1]]);
      const empty = await repo.windowAggregates(at(600), T0, 'DELETE /nothing', thresholds);
      assert.deepEqual(empty.map((r) => [r.endpoint, r.requests, r.p50Ms]), [[null, 0, null]]);
    });

    it('aggregates per time bucket back from an instant: counts, slow requests and p95 of the served ones', async (t) => {
      const repo = new SloRepository(await backend.open(t));
      await repo.insertMany([
        row({ at: T0, latencyMs: 100 }), // the end instant belongs to bucket 0
        row({ at: at(299), latencyMs: 300 }),
        row({ at: at(300), ok: false, status: 503, latencyMs: 1 }), // 5 minutes back exactly: bucket 0's start, so bucket 1
        row({ at: at(301), endpoint: 'GET /api/health', latencyMs: 60 }),
        row({ at: at(1000), latencyMs: 9999 }), // past 3 buckets of 5 minutes
      ]);
      const buckets = await repo.bucketAggregates(T0, 5, 3, null, thresholds);
      assert.deepEqual(buckets.map((b) => [b.age, b.requests, b.errors, b.served, b.slow]), [[0, 2, 0, 2, 1], [1, 2, 1, 1, 1]], 'bucket 2 empty and absent');
      assert.ok(Math.abs(buckets[0]!.p95Ms! - 290) < 1e-9, 'percentile_cont over 100 and 300');
      assert.equal(buckets[1]!.p95Ms, 60, 'the failure is not a served request');
      const one = await repo.bucketAggregates(T0, 5, 3, 'GET /api/health', thresholds);
      assert.deepEqual(one.map((b) => [b.age, b.requests, b.slow]), [[1, 1, 1]]);
    });

    it('counts per endpoint and minute back from an instant, and deletes past a cut-off', async (t) => {
      const repo = new SloRepository(await backend.open(t));
      await repo.insertMany([row({ at: at(1) }), row({ at: at(59) }), row({ at: at(61), ok: false, status: 500 }), row({ at: at(150), latencyMs: 900 }), row({ at: at(301) })]);
      const minutes = await repo.minuteCounts(T0, 5, null, thresholds);
      const byAge = Object.fromEntries(minutes.map((m) => [m.age, [m.requests, m.errors, m.served, m.slow]]));
      assert.deepEqual(byAge, { 0: [2, 0, 2, 0], 1: [1, 1, 0, 0], 2: [1, 0, 1, 1] }, 'the row 301 s back is outside 5 minutes');
      assert.equal(await repo.deleteBefore(at(100), 2), 2, 'deleted in batches of 2');
      assert.equal((await repo.minuteCounts(T0, 60, null, thresholds)).reduce((n, m) => n + m.requests, 0), 3);
      const stats = await repo.stats();
      assert.equal(stats.rows, 3);
      assert.equal(stats.oldest?.toISOString(), at(61).toISOString());
    });
  });
}
