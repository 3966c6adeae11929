import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, TtsError } from '@tts/common';
import { parseTierConcurrency, parseTierRates, TierTable } from './tier-table.js';
import { checkTextLength, DEFAULT_TIER, findTier, TIERS } from './tiers.js';
import { isValidRatePerMinute } from './rate-limits.js';
import { tiersView } from './identity-views.js';

describe('tiers', () => {
  it('lists free, pro and enterprise with growing volume and a default rate within 1..100000 a minute', () => {
    assert.deepEqual(TIERS.map((t) => t.name), ['free', 'pro', 'enterprise']);
    for (let i = 1; i < TIERS.length; i++) {
      const [a, b] = [TIERS[i - 1]!, TIERS[i]!];
      assert.ok(b.dailyCharQuota > a.dailyCharQuota && b.monthlyCharQuota > a.monthlyCharQuota && b.maxTextLength > a.maxTextLength && b.concurrentJobs > a.concurrentJobs && b.concurrentRequests >= a.concurrentRequests);
    }
    assert.ok(TIERS.every((t) => isValidRatePerMinute(t.ratePerMinute) && t.monthlyCharQuota >= t.dailyCharQuota));
    assert.ok(TIERS.every((t) => t.ratePerMinute === 360), "every tier keeps the api_key profile's documented 360/min");
    const view = tiersView();
    assert.equal(view['default_tier'], DEFAULT_TIER);
    assert.deepEqual(Object.keys((view['tiers'] as Record<string, unknown>[])[0]!), [
      'name', 'rate_per_minute', 'daily_char_quota', 'monthly_char_quota', 'max_text_length', 'concurrent_jobs', 'concurrent_requests', 'concurrent_sessions', 'price_per_million_chars_usd',
    ]);
  });

  it('resolves tiers, refusing unknown names with AUTH_TIER_UNKNOWN and falling back for stored ones', () => {
    assert.equal(findTier('pro')?.name, 'pro');
    assert.equal(findTier('platinum'), undefined);
    const table = new TierTable();
    assert.throws(() => table.require('platinum'), (e: unknown) => e instanceof TtsError && e.code === 'AUTH_TIER_UNKNOWN' && e.spec.http === 422);
    assert.equal(table.ofKey('retired-tier').name, DEFAULT_TIER);
  });

  it('applies configured tier rates (TTS_TIER_RATE_PER_MINUTE), above or below 360, leaving the rest of the tier alone', () => {
    const table = new TierTable(parseTierRates(' pro=1200, free=60 '));
    assert.equal(table.require('pro').ratePerMinute, 1200);
    assert.equal(table.require('free').ratePerMinute, 60);
    assert.equal(table.require('enterprise').ratePerMinute, 360);
    assert.equal(table.require('pro').dailyCharQuota, findTier('pro')!.dailyCharQuota);
    assert.equal(findTier('pro')!.ratePerMinute, 360, 'the published defaults are not changed');
    assert.deepEqual(parseTierRates(undefined), {});
    assert.deepEqual(parseTierRates(''), {});
    for (const bad of ['platinum=100', 'pro=0', 'pro=100001', 'pro=1.5', 'pro', 'pro=12,pro=13', 'pro=-5']) {
      assert.throws(() => parseTierRates(bad), (e: unknown) => e instanceof ConfigError && e.variable === 'TTS_TIER_RATE_PER_MINUTE', bad);
    }
  });

  it('applies configured concurrency caps (TTS_TIER_CONCURRENCY) beside the rates, refusing bad values naming the variable', () => {
    assert.deepEqual(TIERS.map((t) => t.concurrentRequests), [2, 10, 32]);
    assert.deepEqual(TIERS.map((t) => t.concurrentSessions), [2, 16, 128]);
    const table = new TierTable(parseTierRates('pro=1200'), parseTierConcurrency('pro=8, free=1'));
    assert.equal(table.require('pro').concurrentRequests, 8);
    assert.equal(table.require('pro').ratePerMinute, 1200);
    assert.equal(table.require('free').concurrentRequests, 1);
    assert.equal(table.require('enterprise').concurrentRequests, 32);
    assert.equal(findTier('pro')!.concurrentRequests, 10, 'the published defaults are not changed');
    for (const bad of ['platinum=2', 'pro=0', 'pro=1001', 'pro=1.5', 'pro', 'pro=2,pro=3']) {
      assert.throws(() => parseTierConcurrency(bad), (e: unknown) => e instanceof ConfigError && e.variable === 'TTS_TIER_CONCURRENCY', bad);
    }
  });

  it('enforces the tier maximum text length with TTS_TEXT_TOO_LONG', () => {
    const free = findTier('free')!;
    assert.doesNotThrow(() => checkTextLength(free, free.maxTextLength));
    assert.throws(() => checkTextLength(free, free.maxTextLength + 1, ['body', 'input']), (e: unknown) => e instanceof TtsError && e.code === 'TTS_TEXT_TOO_LONG' && e.loc[1] === 'input');
  });
});
