import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ApiKeyRepository, FACADE_MIGRATIONS } from '../data/index.js';
import { databaseBackends, kvBackends } from '@tts/common/testing';
import { ConfigError, TtsError } from '@tts/common';
import { ApiKeyService } from './api-keys.js';
import { Authenticator, parseAuthMode, type AuthMode } from './authenticator.js';
import { CHALLENGE_COOKIE, ChallengeService, solveChallenge } from './challenge.js';
import { RateLimitService } from './rate-limits.js';

const code = (c: string) => (e: unknown) => e instanceof TtsError && e.code === c;

describe('auth mode', () => {
  it('defaults to api_key_or_challenge and refuses unknown modes naming TTS_AUTH_MODE', () => {
    assert.equal(parseAuthMode(undefined), 'api_key_or_challenge');
    assert.equal(parseAuthMode(' '), 'api_key_or_challenge');
    assert.equal(parseAuthMode('api_key'), 'api_key');
    assert.throws(() => parseAuthMode('open'), (e: unknown) => e instanceof ConfigError && e.variable === 'TTS_AUTH_MODE');
  });
});

const dbs = databaseBackends(FACADE_MIGRATIONS);
const kvs = kvBackends();

for (const [i, dbBackend] of dbs.entries()) {
  const kvBackend = kvs[i]!;
  describe(`authenticator (${dbBackend.name} + ${kvBackend.name})`, () => {
    after(() => dbBackend.close());

    const setUp = async (t: Parameters<typeof dbBackend.open>[0], mode: AuthMode = 'api_key_or_challenge', cacheTtlMs = 2000) => {
      const db = await dbBackend.open(t);
      const kv = await kvBackend.open(t);
      const apiKeys = new ApiKeyService({ repository: new ApiKeyRepository(db), cacheTtlMs });
      const challenge = new ChallengeService({ secret: Buffer.alloc(32, 9), kv, difficultyBits: 8 });
      const issued = challenge.issue();
      const pass = await challenge.redeem({ challenge: issued.challenge, solution: solveChallenge(issued.challenge, 8) }, 'ua');
      const cookie = `theme=dark; ${CHALLENGE_COOKIE}=${pass.cookieValue}`;
      return { kv, apiKeys, pass, cookie, auth: new Authenticator({ mode, apiKeys, challenge }) };
    };

    it('accepts an API key or, without one, a challenge pass, naming the rate profile and subject', async (t) => {
      const { apiKeys, auth, cookie, pass } = await setUp(t);
      const { apiKey, record } = await apiKeys.create({ name: 'app' });
      const byKey = await auth.authenticate({ apiKey, cookie, clientBinding: 'ua' });
      assert.equal(byKey.method, 'api_key');
      assert.equal(byKey.rateProfile, 'api_key');
      assert.equal(byKey.subject, record.keyId);
      const byPass = await auth.authenticate({ apiKey: undefined, cookie, clientBinding: 'ua' });
      assert.equal(byPass.method, 'challenge');
      assert.equal(byPass.rateProfile, 'challenge');
      assert.equal(byPass.subject, pass.passId);
    });

    it('never downgrades a bad key to the challenge, and asks for a credential when none is sent', async (t) => {
      const { auth, cookie } = await setUp(t);
      await assert.rejects(auth.authenticate({ apiKey: 'tts_wrong', cookie, clientBinding: 'ua' }), code('AUTH_KEY_INVALID'));
      await assert.rejects(auth.authenticate({ apiKey: undefined, cookie: undefined, clientBinding: 'ua' }), code('AUTH_CHALLENGE_REQUIRED'));
      await assert.rejects(auth.authenticate({ apiKey: undefined, cookie, clientBinding: 'other-agent' }), code('AUTH_CHALLENGE_COOKIE_INVALID'));
      await assert.rejects(auth.authenticate({ apiKey: undefined, cookie: `${CHALLENGE_COOKIE}=p1.forged`, clientBinding: 'ua' }), code('AUTH_CHALLENGE_COOKIE_INVALID'));
    });

    it('requires the API key in api_key mode, whatever cookie is sent', async (t) => {
      const { auth, cookie } = await setUp(t, 'api_key');
      await assert.rejects(auth.authenticate({ apiKey: undefined, cookie, clientBinding: 'ua' }), code('AUTH_KEY_MISSING'));
    });

    it('measures verify-key + limiter.consume per request (reported, not asserted)', async (t) => {
      const rounds = 3000;
      const keysUsed = 10; // 300 calls per key stay under the 360/min api_key profile
      for (const cacheTtlMs of [2000, 0]) {
        const { apiKeys, auth, kv } = await setUp(t, 'api_key_or_challenge', cacheTtlMs);
        const limits = new RateLimitService(kv.rateLimiter);
        const keys = await Promise.all(Array.from({ length: keysUsed }, (_, n) => apiKeys.create({ name: `bench-${n}`, tier: 'pro' })));
        const samples: number[] = [];
        for (let n = 0; n < rounds; n++) {
          const key = keys[n % keysUsed]!;
          const started = process.hrtime.bigint();
          const principal = await auth.authenticate({ apiKey: key.apiKey, cookie: undefined, clientBinding: 'ua' });
          const decision = await limits.consume(principal.rateProfile, principal.subject, principal.method === 'api_key' ? principal.key.ratePerMinute : undefined);
          samples.push(Number(process.hrtime.bigint() - started) / 1e6);
          assert.equal(principal.subject, key.record.keyId);
          assert.equal(decision.allowed, true);
        }
        samples.sort((a, b) => a - b);
        const at = (q: number): string => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(3);
        t.diagnostic(
          `${dbBackend.name}+${kvBackend.name}, key cache ${cacheTtlMs ? 'on' : 'off'}: auth + rate limit p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms over ${rounds} requests`,
        );
        assert.ok(samples.every((s) => Number.isFinite(s) && s > 0));
      }
    });
  });
}
