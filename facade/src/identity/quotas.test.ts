import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ApiKeyRepository, FACADE_MIGRATIONS, UsageRepository, type UsageEventInput } from '../data/index.js';
import { databaseBackends } from '@tts/common/testing';
import { ApiKeyService } from './api-keys.js';
import { QUOTA_STAGE_HEADER, QuotaExceededError, quotaHeaders, QuotaService, quotaStage, utcPeriod, worseStage } from './quotas.js';
import { findTier } from './tiers.js';
import { UsageRecorder } from './usage-recorder.js';
import { createLogger } from '@tts/common';

describe('quota stages', () => {
  it('moves ok -> warning at 80 % -> soft_limit at 100 % -> hard_block beyond the 5 % grace', () => {
    assert.equal(quotaStage(0, 1000), 'ok');
    assert.equal(quotaStage(799, 1000), 'ok');
    assert.equal(quotaStage(800, 1000), 'warning');
    assert.equal(quotaStage(999, 1000), 'warning');
    assert.equal(quotaStage(1000, 1000), 'soft_limit');
    assert.equal(quotaStage(1050, 1000), 'soft_limit');
    assert.equal(quotaStage(1051, 1000), 'hard_block');
    assert.equal(quotaStage(5, 0), 'hard_block');
    assert.equal(quotaStage(10 ** 12, null), 'ok');
    assert.equal(quotaStage(900, 1000, { warningRatio: 0.95, graceRatio: 0 }), 'ok');
    assert.equal(worseStage('warning', 'soft_limit'), 'soft_limit');
    assert.equal(worseStage('hard_block', 'ok'), 'hard_block');
  });

  it('computes UTC days, months and their resets', () => {
    const p = utcPeriod(Date.UTC(2024, 11, 31, 23, 59, 59));
    assert.deepEqual(p, { day: '2024-12-31', monthStart: '2024-12-01', nextDayUnix: Date.UTC(2025, 0, 1) / 1000, nextMonthUnix: Date.UTC(2025, 0, 1) / 1000 });
    assert.equal(utcPeriod(Date.UTC(2024, 1, 29, 12)).nextDayUnix, Date.UTC(2024, 2, 1) / 1000);
  });
});

const usageEvent = (keyId: string, characters: number, at: Date, status: 'ok' | 'error' = 'ok'): UsageEventInput => ({
  requestId: null, keyId, authMethod: 'api_key', endpoint: 'POST /api/tts', tier: 'free', characters, audioSeconds: 1,
  status, httpStatus: status === 'ok' ? 200 : 503, errorCode: null, latencyMs: 10, quotaStage: null, at,
});

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`quota service (${backend.name})`, () => {
    after(() => backend.close());

    it('reports the stage of usage including the request and refuses beyond the grace until the next UTC day', async (t) => {
      const db = await backend.open(t);
      const now = Date.UTC(2024, 4, 10, 18, 0, 0);
      const usage = new UsageRepository(db);
      const { record } = await new ApiKeyService({ repository: new ApiKeyRepository(db) }).create({ name: 'q', tier: 'free', dailyCharQuota: 1000 });
      const tier = findTier('free')!;
      const quotas = new QuotaService({ usage, now: () => now });
      assert.equal((await quotas.check(record, tier, 100)).stage, 'ok');
      await usage.record(usageEvent(record.keyId, 700, new Date(now - 3_600_000)));
      await usage.record(usageEvent(record.keyId, 5000, new Date(now - 3_600_000), 'error'));
      await usage.record(usageEvent(record.keyId, 900, new Date(now - 86_400_000))); // yesterday: monthly only
      const warning = await quotas.check(record, tier, 100);
      assert.equal(warning.stage, 'warning');
      assert.deepEqual(warning.daily, { used: 800, limit: 1000, stage: 'warning', resetUnix: Date.UTC(2024, 4, 11) / 1000 });
      assert.deepEqual(warning.monthly, { used: 1700, limit: 100_000, stage: 'ok', resetUnix: Date.UTC(2024, 5, 1) / 1000 });
      assert.deepEqual(quotaHeaders(warning), { [QUOTA_STAGE_HEADER]: 'warning' });
      assert.equal((await quotas.check(record, tier, 350)).stage, 'soft_limit', '1050 of 1000 is within the grace');
      const err = await quotas.check(record, tier, 351).then(() => assert.fail('served beyond the grace'), (e: unknown) => e);
      assert.ok(err instanceof QuotaExceededError);
      assert.equal(err.code, 'QUOTA_EXCEEDED');
      assert.equal(err.spec.http, 429);
      assert.equal(err.retryAfterSec, 6 * 3600, 'until the next UTC midnight');
      assert.equal(err.status.daily.stage, 'hard_block');
      assert.equal((await quotas.status(record, tier)).stage, 'ok', 'status without a request shows the usage so far (700/1000)');
    });

    it('applies the monthly quota and per-key overrides, the override winning over the tier', async (t) => {
      const db = await backend.open(t);
      const now = Date.UTC(2024, 4, 31, 12);
      const usage = new UsageRepository(db);
      const keys = new ApiKeyService({ repository: new ApiKeyRepository(db) });
      const { record } = await keys.create({ name: 'm', tier: 'pro' });
      const tier = findTier('pro')!;
      const quotas = new QuotaService({ usage, now: () => now });
      await usage.record(usageEvent(record.keyId, 4_900_000, new Date(Date.UTC(2024, 4, 2))));
      const monthly = await quotas.check(record, tier, 150_000);
      assert.equal(monthly.monthly.stage, 'soft_limit');
      assert.equal(monthly.stage, 'soft_limit');
      const blocked = await quotas.check(record, tier, 400_000).then(() => assert.fail('served'), (e: unknown) => e);
      assert.ok(blocked instanceof QuotaExceededError);
      assert.equal(blocked.retryAfterSec, 12 * 3600, 'until the first of next month');
      const raised = await keys.update(record.keyId, { monthlyCharQuota: 50_000_000 });
      assert.equal((await quotas.check(raised, tier, 400_000)).monthly.stage, 'ok');
      assert.equal((await quotas.check(raised, tier, 300_000)).stage, 'ok');
    });

    it('with a cache and write-behind usage, counts every request of this replica exactly once', async (t) => {
      const db = await backend.open(t);
      let now = Date.UTC(2024, 4, 10, 18, 0, 0);
      const repo = new UsageRepository(db);
      const recorder = new UsageRecorder(repo, createLogger('test'), { flushMs: 60_000 });
      const quotas = new QuotaService({ usage: repo, pending: recorder, cacheTtlMs: 2000, staleReuseMs: 0, now: () => now });
      const { record } = await new ApiKeyService({ repository: new ApiKeyRepository(db) }).create({ name: 'c', tier: 'free', dailyCharQuota: 1000 });
      const tier = findTier('free')!;
      const used = async () => (await quotas.status(record, tier)).daily.used;
      const at = () => new Date(now);

      await repo.record(usageEvent(record.keyId, 100, at())); // already in the database
      recorder.record(usageEvent(record.keyId, 10, at())); // buffered, not written
      const reading = used();
      recorder.record(usageEvent(record.keyId, 1, at())); // recorded while the figures are read
      recorder.record(usageEvent(record.keyId, 5000, at(), 'error')); // failures never count
      assert.equal(await reading, 111);
      recorder.record(usageEvent(record.keyId, 20, at())); // after the read: added to the cached figures
      assert.equal(await used(), 131);

      await repo.record(usageEvent(record.keyId, 300, at())); // another replica's request
      assert.equal(await used(), 131, 'cached figures are reused within the TTL');
      await recorder.drain();
      now += 2001;
      assert.equal(await used(), 431, 'after the TTL: the database, with nothing counted twice');

      recorder.record(usageEvent(record.keyId, 40, at()));
      const flushing = recorder.drain(); // a write in flight while the figures are read again
      now += 2001;
      assert.equal(await used(), 471);
      await flushing;
      now += 2001;
      assert.equal(await used(), 471);

      now = Date.UTC(2024, 4, 11, 0, 0, 1); // a new UTC day: fresh daily figures, same month
      const next = await quotas.status(record, tier);
      assert.deepEqual([next.daily.used, next.monthly.used], [0, 471]);
    });

    it('after the TTL, answers from the cache while one background read brings other replicas usage', async (t) => {
      const db = await backend.open(t);
      let now = Date.UTC(2024, 4, 10, 18, 0, 0);
      const repo = new UsageRepository(db);
      const recorder = new UsageRecorder(repo, createLogger('test'), { flushMs: 60_000 });
      const quotas = new QuotaService({ usage: repo, pending: recorder, cacheTtlMs: 2000, staleReuseMs: 30_000, now: () => now });
      const { record } = await new ApiKeyService({ repository: new ApiKeyRepository(db) }).create({ name: 's', tier: 'free', dailyCharQuota: 1000 });
      const tier = findTier('free')!;
      const used = async () => (await quotas.status(record, tier)).daily.used;
      assert.equal(await used(), 0);
      await repo.record(usageEvent(record.keyId, 300, new Date(now))); // another replica
      recorder.record(usageEvent(record.keyId, 7, new Date(now))); // this replica
      now += 2001;
      assert.equal(await used(), 7, 'stale figures answer at once (with this replica counted)');
      await recorder.exclusive(async () => undefined); // the background read has finished
      assert.equal(await used(), 307);
      now += 40_000; // long unused: read before answering
      await repo.record(usageEvent(record.keyId, 1, new Date(now)));
      assert.equal(await used(), 308);
    });
  });
}
