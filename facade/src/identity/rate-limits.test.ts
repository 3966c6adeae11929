import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kvBackends } from '@tts/common/testing';
import { ERROR_CATALOGUE } from '@tts/common';
import {
  effectiveRatePerMinute,
  isValidRatePerMinute,
  RATE_PROFILES,
  RateLimitedError,
  rateLimitHeaders,
  RateLimitService,
  rateLimitView,
  type RateProfile,
} from './rate-limits.js';
import { findTier } from './tiers.js';

describe('rate profiles', () => {
  it('are exactly the documented limits per minute', () => {
    assert.deepEqual(RATE_PROFILES, {
      public: { limit: 30, windowSec: 60 },
      challenge: { limit: 30, windowSec: 60 },
      api_key: { limit: 360, windowSec: 60 },
      studio: { limit: 8, windowSec: 60 },
      studio_edit: { limit: 120, windowSec: 60 },
      job_token: { limit: 300, windowSec: 60 },
    });
  });

  it("gives a key its own rate, else its tier's default, else the api_key profile's 360", () => {
    const pro = findTier('pro')!;
    assert.equal(effectiveRatePerMinute(null, pro), pro.ratePerMinute);
    assert.equal(effectiveRatePerMinute(null, { ratePerMinute: 60 }), 60);
    assert.equal(effectiveRatePerMinute(null, { ratePerMinute: 5000 }), 5000, 'a tier may go above 360');
    assert.equal(effectiveRatePerMinute(1000, { ratePerMinute: 60 }), 1000, "the key's override wins over its tier");
    assert.equal(effectiveRatePerMinute(5, pro), 5);
    assert.equal(effectiveRatePerMinute(null, undefined), 360);
  });

  it('bounds a rate to whole numbers from 1 to 100000 a minute', () => {
    for (const ok of [1, 360, 100_000]) assert.equal(isValidRatePerMinute(ok), true, String(ok));
    for (const bad of [0, -1, 1.5, 100_001, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal(isValidRatePerMinute(bad), false, String(bad));
  });

  it("replaces the api_key profile's limit with the key's rate, above or below 360; other profiles keep theirs", () => {
    const service = new RateLimitService({ consume: () => Promise.reject(new Error('unused')) });
    assert.deepEqual(service.ruleFor('api_key'), { limit: 360, windowSec: 60 });
    assert.deepEqual(service.ruleFor('api_key', 360), { limit: 360, windowSec: 60 });
    assert.deepEqual(service.ruleFor('api_key', 60), { limit: 60, windowSec: 60 });
    assert.deepEqual(service.ruleFor('api_key', 10_000), { limit: 10_000, windowSec: 60 });
    assert.deepEqual(service.ruleFor('api_key', 100_000), { limit: 100_000, windowSec: 60 });
    assert.deepEqual(service.ruleFor('api_key', 0), { limit: 360, windowSec: 60 }, 'out of bounds: the profile');
    assert.deepEqual(service.ruleFor('studio', 60), { limit: 8, windowSec: 60 });
    assert.deepEqual(service.ruleFor('challenge', 1000), { limit: 30, windowSec: 60 });
  });

  it('formats the headers and the web job rate_limit object from one decision', () => {
    const refused = { allowed: false, limit: 30, remaining: 0, resetUnix: 1_000_060, retryAfterSec: 12, windowSec: 60 };
    assert.deepEqual(rateLimitHeaders(refused, 1_000_000_000), {
      'RateLimit-Limit': '30',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '60',
      'RateLimit-Policy': '30;w=60',
      'Retry-After': '12',
    });
    assert.ok(!('Retry-After' in rateLimitHeaders({ ...refused, allowed: true, remaining: 3, retryAfterSec: 0 }, 1_000_000_000)));
    assert.deepEqual(rateLimitView(refused), { remaining: 0, limit: 30, reset_unix: 1_000_060, window_sec: 60 });
    const err = new RateLimitedError(refused);
    assert.equal(err.code, 'RATE_LIMITED');
    assert.equal(err.spec.http, 429);
    assert.equal(err.retryAfterSec, 12);
    assert.equal(ERROR_CATALOGUE.RATE_LIMITED.http, 429);
  });
});

for (const backend of kvBackends()) {
  describe(`rate limit service (${backend.name})`, () => {
    for (const [profile, limit] of [['challenge', 30], ['public', 30], ['studio', 8], ['api_key', 360]] as [RateProfile, number][]) {
      it(`allows ${limit} calls a minute for ${profile}, then throws RATE_LIMITED with Retry-After`, async (t) => {
        const service = new RateLimitService((await backend.open(t)).rateLimiter);
        for (let i = 0; i < limit; i++) {
          const d = await service.enforce(profile, 'subject-1');
          assert.equal(d.remaining, limit - 1 - i);
        }
        const err = await service.enforce(profile, 'subject-1').then(
          () => assert.fail('over the limit'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof RateLimitedError);
        assert.ok(err.decision.retryAfterSec >= 59 && err.decision.retryAfterSec <= 60);
        assert.equal(rateLimitHeaders(err.decision)['RateLimit-Remaining'], '0');
        assert.equal((await service.consume(profile, 'subject-2')).allowed, true, 'subjects are counted apart');
      });
    }

    it("enforces a key's own rate: 5 then refused with its limit in the headers; 1000 passes 361; a change applies on the next call", async (t) => {
      const service = new RateLimitService((await backend.open(t)).rateLimiter);
      for (let i = 0; i < 5; i++) assert.equal((await service.enforce('api_key', 'five', 5)).limit, 5);
      const err = await service.enforce('api_key', 'five', 5).then(
        () => assert.fail('over its own limit'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof RateLimitedError);
      assert.deepEqual([rateLimitHeaders(err.decision)['RateLimit-Limit'], rateLimitHeaders(err.decision)['RateLimit-Policy']], ['5', '5;w=60']);
      // Raised: the 5 calls already counted stay in the window, under the new limit.
      assert.equal((await service.enforce('api_key', 'five', 7)).remaining, 1);
      const many = await Promise.all(Array.from({ length: 361 }, () => service.consume('api_key', 'thousand', 1000)));
      assert.equal(many.filter((d) => d.allowed).length, 361);
      assert.equal(Math.min(...many.map((d) => d.remaining)), 1000 - 361);
      // Lowered below what was counted: refused at once.
      assert.equal((await service.consume('api_key', 'thousand', 360)).allowed, false);
    });

    it('counts profiles apart for the same subject', async (t) => {
      const service = new RateLimitService((await backend.open(t)).rateLimiter);
      for (let i = 0; i < 8; i++) await service.enforce('studio', 'same');
      await assert.rejects(service.enforce('studio', 'same'), RateLimitedError);
      assert.equal((await service.enforce('challenge', 'same')).remaining, 29);
    });

    if (backend.shared) {
      it('shares the window between replicas (two connections)', async (t) => {
        const first = await backend.open(t);
        const second = await backend.open(t, first.prefix);
        const a = new RateLimitService(first.rateLimiter);
        const b = new RateLimitService(second.rateLimiter);
        const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).consume('challenge', 'web-client')));
        assert.equal(decisions.filter((d) => d.allowed).length, 30);
      });
    }
  });
}
