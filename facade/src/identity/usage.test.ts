import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type Database } from '@tts/common/data';
import { ApiKeyRepository, FACADE_MIGRATIONS, UsageRepository, type UsageEventInput } from '../data/index.js';
import { databaseBackends } from '@tts/common/testing';
import { TtsError, createLogger } from '@tts/common';
import { ApiKeyService } from './api-keys.js';
import { QuotaService } from './quotas.js';
import { UsageService } from './usage.js';
import { UsageRecorder } from './usage-recorder.js';
import { costDashboardView, usageSummaryView } from './identity-views.js';

const code = (c: string, field?: string) => (e: unknown) => e instanceof TtsError && e.code === c && (field === undefined || e.loc[1] === field);
const NOW = Date.UTC(2024, 4, 20, 12);

async function setUp(db: Database): Promise<{ usage: UsageService; free: string; pro: string }> {
  const keys = new ApiKeyService({ repository: new ApiKeyRepository(db) });
  const free = (await keys.create({ name: 'Free key', tier: 'free' })).record.keyId;
  const pro = (await keys.create({ name: 'Pro key', tier: 'pro', dailyCharQuota: 100_000 })).record.keyId;
  const repo = new UsageRepository(db);
  const recorder = new UsageRecorder(repo, createLogger('test'));
  const quotas = new QuotaService({ usage: repo, pending: recorder, cacheTtlMs: 60_000, now: () => NOW });
  const usage = new UsageService({ usage: repo, apiKeys: new ApiKeyRepository(db), quotas, recorder, now: () => NOW });
  const event = (keyId: string | null, tier: string | null, characters: number, audioSeconds: number, at: number, status: 'ok' | 'error' = 'ok'): UsageEventInput => ({
    requestId: 'r', keyId, authMethod: keyId === null ? 'challenge' : 'api_key', endpoint: 'POST /api/tts', tier, characters, audioSeconds,
    status, httpStatus: status === 'ok' ? 200 : 503, errorCode: status === 'ok' ? null : 'TTS_ENGINE_FAILED', latencyMs: 120, quotaStage: 'ok', at: new Date(at),
  });
  usage.record(event(free, 'free', 8_500, 600, NOW - 3_600_000));
  usage.record(event(pro, 'pro', 90_000, 6_000, NOW - 3_600_000));
  usage.record(event(pro, 'pro', 10_000, 600, Date.UTC(2024, 4, 1)));
  usage.record(event(pro, 'pro', 999, 0, NOW - 60_000, 'error'));
  usage.record(event(null, null, 300, 20, NOW - 60_000));
  await usage.drain();
  return { usage, free, pro };
}

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`usage service (${backend.name})`, () => {
    after(() => backend.close());

    it('serves the usage summary with the filters and bounds of the interface', async (t) => {
      const { usage, pro } = await setUp(await backend.open(t));
      const all = await usage.summary({});
      assert.equal(all.limit, 500);
      assert.equal(all.totals.requests, 5);
      assert.equal(all.totals.characters, 108_800);
      const view = usageSummaryView(await usage.summary({ key_id: pro, day_from: '2024-05-20', day_to: '2024-05-20', limit: '1' }));
      assert.equal(view['limit'], 1);
      assert.equal(view['day_from'], '2024-05-20');
      assert.deepEqual(view['totals'], { requests: 2, ok_requests: 1, failed_requests: 1, characters: 90_000, audio_seconds: 6000 });
      assert.equal((view['rows'] as unknown[]).length, 1);
      assert.equal(view['truncated'], false);
      assert.equal((await usage.summary({ endpoint: 'GET /nothing' })).rows.length, 0);
    });

    it('serves the cost dashboard per key and tier with audio minutes, cost and the current quota stage', async (t) => {
      const { usage, free, pro } = await setUp(await backend.open(t));
      const report = await usage.costDashboard({ day_from: '2024-05-01', day_to: '2024-05-31' });
      assert.deepEqual(
        report.rows.map((r) => [r.keyId, r.keyName, r.tier, r.characters, r.audioMinutes, r.costUsd, r.quota?.stage]),
        [
          [pro, 'Pro key', 'pro', 100_000, 110, 1.5, 'warning'], // 90 000 today of a 100 000 override
          [free, 'Free key', 'free', 8_500, 10, 0, 'warning'], // 8 500 of 10 000 a day
        ],
      );
      assert.deepEqual(report.totals, { requests: 4, characters: 108_500, audioMinutes: 120, costUsd: 1.5 });
      assert.deepEqual(report.byTier.map((t) => [t.tier, t.costUsd]), [['free', 0], ['pro', 1.5]]);
      const view = costDashboardView(await usage.costDashboard({ tier: 'free' }));
      const rows = view['rows'] as Record<string, unknown>[];
      assert.deepEqual(rows.map((r) => [r['key_id'], r['quota_stage'], r['cost_usd']]), [[free, 'warning', 0]]);
      assert.equal((await usage.costDashboard({ key_id: pro, limit: 5000 })).rows.length, 1);
    });

    it('answers bad parameters with stable 422 codes, never a 500', async (t) => {
      const { usage } = await setUp(await backend.open(t));
      await assert.rejects(usage.summary({ day_from: '2024-02-30' }), code('USAGE_DATE_INVALID', 'day_from'));
      await assert.rejects(usage.costDashboard({ day_to: 'tomorrow' }), code('USAGE_DATE_INVALID', 'day_to'));
      await assert.rejects(usage.summary({ day_from: '2024-05-02', day_to: '2024-05-01' }), code('USAGE_DATE_RANGE_INVALID'));
      await assert.rejects(usage.costDashboard({ day_from: '2024-05-02', day_to: '2024-05-01' }), code('USAGE_DATE_RANGE_INVALID'));
      for (const limit of [0, 5001, '1.5', 'all']) {
        await assert.rejects(usage.summary({ limit }), code('VALIDATION_FAILED', 'limit'));
        await assert.rejects(usage.costDashboard({ limit }), code('VALIDATION_FAILED', 'limit'));
      }
      await assert.rejects(usage.summary({ key_id: 'k'.repeat(201) }), code('VALIDATION_FAILED', 'key_id'));
      await assert.rejects(usage.costDashboard({ tier: ['a'] }), code('VALIDATION_FAILED', 'tier'));
    });
  });
}
