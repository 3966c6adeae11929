import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kvBackends } from '@tts/common/testing';
import { ERROR_CATALOGUE } from '@tts/common';
import { RATE_PROFILES, RateLimitedError, rateLimitHeaders, RateLimitService, rateLimitView, type RateProfile } from './rate-limits.js';
import { findTier, type Tier } from './tiers.js';

describe('rate profiles', () => {
  it('are exactly the documented limits per minute', () => {
    assert.deepEqual(RATE_PROFILES, {
      public: { limit: 30, windowSec: 60 },
      challenge: { limit: 30, windowSec: 60 },
      api_key: { limit: 360, windowSec: 60 },
      studio: { limit: 8, windowSec: 60 },
      studio_edit: { limit: 120, windowSec: 60 },
    });
  });

  it('lets a tier with a lower rate tighten the api_key profile, never loosen it', async () => {
    const service = new RateLimitService({ consume: () => Promise.reject(new Error('unused')) });
    const pro = findTier('pro')!;
    assert.deepEqual(service.ruleFor('api_key', pro), { limit: 360, windowSec: 60 });
    const slow: Tier = { ...pro, ratePerMinute: 60 };
    assert.deepEqual(service.ruleFor('api_key', slow), { limit: 60, windowSec: 60 });
    assert.deepEqual(service.ruleFor('api_key', { ...pro, ratePerMinute: 10_000 }), { limit: 360, windowSec: 60 });
    assert.deepEqual(service.ruleFor('studio', slow), { limit: 8, windowSec: 60 });
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
