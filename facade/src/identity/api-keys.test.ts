import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ApiKeyRepository, FACADE_MIGRATIONS, SecretRepository } from '../data/index.js';
import { databaseBackends } from '@tts/common/testing';
import { TtsError, apiKeyIdOf } from '@tts/common';
import { ApiKeyService, generateApiKey } from './api-keys.js';
import { loadChallengeSecret } from './challenge.js';
import { sha256Hex } from './crypto.js';
import { apiKeyView, createdApiKeyView, parseApiKeyCreateRequest, parseApiKeyUpdateRequest } from './identity-views.js';

const code = (c: string) => (e: unknown) => e instanceof TtsError && e.code === c;

describe('api key format', () => {
  it('generates tts_<key_id>_<secret> keys with a public prefix and a SHA-256 hash', () => {
    const k = generateApiKey();
    assert.match(k.apiKey, /^tts_[a-z0-9]{16}_[A-Za-z0-9]{40}$/);
    assert.equal(k.prefix, `tts_${k.keyId}`);
    assert.ok(k.apiKey.startsWith(`${k.prefix}_`));
    assert.equal(k.secretHash, sha256Hex(k.apiKey));
    assert.equal(apiKeyIdOf(k.apiKey), k.keyId);
    assert.notEqual(generateApiKey().apiKey, k.apiKey);
    assert.equal(apiKeyIdOf(`${k.apiKey} `), undefined);
    assert.equal(apiKeyIdOf('tts_short_secret'), undefined);
  });

  it('parses create and update bodies, refusing wrong types with VALIDATION_FAILED', () => {
    assert.deepEqual(parseApiKeyCreateRequest({ name: 'ci', tier: 'pro', daily_char_quota: 10 }), { name: 'ci', tier: 'pro', dailyCharQuota: 10, monthlyCharQuota: undefined, rateLimitPerMinute: undefined });
    assert.equal(parseApiKeyCreateRequest({ name: 'ci', rate_limit_per_minute: 1000 }).rateLimitPerMinute, 1000);
    assert.throws(() => parseApiKeyCreateRequest({ name: 'ci', rate_limit_per_minute: '1000' }), code('VALIDATION_FAILED'));
    assert.throws(() => parseApiKeyCreateRequest({}), code('VALIDATION_FAILED'));
    assert.throws(() => parseApiKeyCreateRequest([]), code('VALIDATION_FAILED'));
    assert.throws(() => parseApiKeyCreateRequest({ name: 3 }), code('VALIDATION_FAILED'));
    assert.deepEqual(parseApiKeyUpdateRequest({ disabled: true, monthly_char_quota: null, rate_limit_per_minute: null }), {
      name: undefined, tier: undefined, disabled: true, dailyCharQuota: undefined, monthlyCharQuota: null, rateLimitPerMinute: null,
    });
    assert.throws(() => parseApiKeyUpdateRequest({ disabled: 'yes' }), code('VALIDATION_FAILED'));
    assert.throws(() => parseApiKeyUpdateRequest({ daily_char_quota: '5' }), code('VALIDATION_FAILED'));
  });
});

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`api key service (${backend.name})`, () => {
    after(() => backend.close());

    it('creates a key shown once, stores only its hash and authenticates it', async (t) => {
      const db = await backend.open(t);
      const keys = new ApiKeyService({ repository: new ApiKeyRepository(db) });
      const created = await keys.create({ name: '  build server  ', tier: 'pro' });
      assert.equal(created.record.name, 'build server');
      assert.equal(created.record.tier, 'pro');
      assert.equal(createdApiKeyView(created)['api_key'], created.apiKey);
      const dump = JSON.stringify(await db.query('SELECT * FROM api_keys'));
      assert.ok(!dump.includes(created.apiKey.slice(-40)), 'the secret is not in the database');
      assert.ok(dump.includes(sha256Hex(created.apiKey)), 'its hash is');
      const listed = await keys.list();
      assert.equal(listed.length, 1);
      const view = JSON.stringify(listed.map(apiKeyView));
      assert.ok(!view.includes(created.apiKey.slice(-40)) && !view.includes(sha256Hex(created.apiKey)), 'lists carry neither');
      const who = await keys.authenticate(created.apiKey);
      assert.equal(who.record.keyId, created.record.keyId);
      assert.equal(who.tier.name, 'pro');
    });

    it('refuses missing, malformed, oversize, unknown and wrong keys with stable codes and no key in the message', async (t) => {
      const keys = new ApiKeyService({ repository: new ApiKeyRepository(await backend.open(t)) });
      const { apiKey } = await keys.create({ name: 'k' });
      await assert.rejects(keys.authenticate(undefined), code('AUTH_KEY_MISSING'));
      await assert.rejects(keys.authenticate(''), code('AUTH_KEY_MISSING'));
      const wrongSecret = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
      const unknown = generateApiKey().apiKey;
      for (const bad of ['nonsense', `${apiKey}x`, `Bearer ${apiKey}`, apiKey.toUpperCase(), 'x'.repeat(20_000), wrongSecret, unknown]) {
        const err = await keys.authenticate(bad).then(() => assert.fail('accepted'), (e: unknown) => e);
        assert.ok(code('AUTH_KEY_INVALID')(err), bad.slice(0, 30));
        assert.ok(!(err as Error).message.includes(bad.slice(0, 20)), 'the message never echoes the key');
      }
    });

    it('disables a key at once on this replica and after the cache TTL on another', async (t) => {
      const db = await backend.open(t);
      const clock = { now: 1_000_000 };
      const admin = new ApiKeyService({ repository: new ApiKeyRepository(db), now: () => clock.now });
      const other = new ApiKeyService({ repository: new ApiKeyRepository(await backend.open(t, db.schema)), cacheTtlMs: 2000, now: () => clock.now });
      const { apiKey, record } = await admin.create({ name: 'k' });
      await admin.authenticate(apiKey);
      await other.authenticate(apiKey);
      const disabled = await admin.update(record.keyId, { disabled: true });
      assert.equal(disabled.disabled, true);
      await assert.rejects(admin.authenticate(apiKey), code('AUTH_KEY_DISABLED'));
      await other.authenticate(apiKey); // still cached on the other replica
      clock.now += 2001;
      await other.authenticate(apiKey); // stale: answered from the cache while it is read again
      await new Promise((r) => setTimeout(r, 50));
      await assert.rejects(other.authenticate(apiKey), code('AUTH_KEY_DISABLED'), 'after the background read');
      const strict = new ApiKeyService({ repository: new ApiKeyRepository(await backend.open(t, db.schema)), cacheTtlMs: 2000, staleReuseMs: 0, now: () => clock.now });
      await admin.update(record.keyId, { disabled: false });
      await strict.authenticate(apiKey);
      await admin.update(record.keyId, { disabled: true });
      clock.now += 2001;
      await assert.rejects(strict.authenticate(apiKey), code('AUTH_KEY_DISABLED'), 'without stale reuse: refused right after the TTL');
      clock.now += 60_000;
      await assert.rejects(other.authenticate(apiKey), code('AUTH_KEY_DISABLED'), 'long unused: read before answering');
      await admin.update(record.keyId, { disabled: false });
      assert.equal((await admin.authenticate(apiKey)).record.disabled, false);
      const wrong = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
      await admin.update(record.keyId, { disabled: true });
      await assert.rejects(admin.authenticate(wrong), code('AUTH_KEY_INVALID'), 'a disabled key is not revealed without its secret');
    });

    it('updates name, tier and quota overrides, refusing unknown keys, tiers and bad values', async (t) => {
      const keys = new ApiKeyService({ repository: new ApiKeyRepository(await backend.open(t)) });
      const { record } = await keys.create({ name: 'k', dailyCharQuota: 500 });
      assert.equal(record.tier, 'free');
      assert.equal(record.dailyCharQuota, 500);
      const updated = await keys.update(record.keyId, { name: 'renamed', tier: 'enterprise', dailyCharQuota: null, monthlyCharQuota: 1_000_000 });
      assert.deepEqual([updated.name, updated.tier, updated.dailyCharQuota, updated.monthlyCharQuota], ['renamed', 'enterprise', null, 1_000_000]);
      assert.equal((await keys.get(record.keyId)).name, 'renamed');
      await assert.rejects(keys.update('abcdefghijklmnop', { name: 'x' }), code('AUTH_KEY_NOT_FOUND'));
      await assert.rejects(keys.update('../../etc', { name: 'x' }), code('AUTH_KEY_NOT_FOUND'));
      await assert.rejects(keys.get('nope'), code('AUTH_KEY_NOT_FOUND'));
      await assert.rejects(keys.update(record.keyId, { tier: 'platinum' }), code('AUTH_TIER_UNKNOWN'));
      await assert.rejects(keys.create({ name: 'k', tier: 'platinum' }), code('AUTH_TIER_UNKNOWN'));
      await assert.rejects(keys.update(record.keyId, { name: '' }), code('VALIDATION_FAILED'));
      await assert.rejects(keys.create({ name: 'x'.repeat(101) }), code('VALIDATION_FAILED'));
      await assert.rejects(keys.create({ name: 'bell\u0007' }), code('VALIDATION_FAILED'));
      await assert.rejects(keys.update(record.keyId, { dailyCharQuota: -5 }), code('VALIDATION_FAILED'));
      await assert.rejects(keys.update(record.keyId, { monthlyCharQuota: 1.5 }), code('VALIDATION_FAILED'));
    });

    it("sets, changes and clears a key's own rate; authenticating gives the effective rate", async (t) => {
      const keys = new ApiKeyService({ repository: new ApiKeyRepository(await backend.open(t)) });
      const plain = await keys.create({ name: 'plain' });
      assert.equal(plain.record.rateLimitPerMinute, null);
      assert.equal(apiKeyView(plain.record)['rate_limit_per_minute'], null);
      assert.equal((await keys.authenticate(plain.apiKey)).ratePerMinute, 360, "the tier's default");
      const fast = await keys.create({ name: 'fast', tier: 'pro', rateLimitPerMinute: 1000 });
      assert.equal(apiKeyView(fast.record)['rate_limit_per_minute'], 1000);
      assert.equal((await keys.authenticate(fast.apiKey)).ratePerMinute, 1000);
      assert.equal((await keys.update(fast.record.keyId, { rateLimitPerMinute: 5 })).rateLimitPerMinute, 5);
      assert.equal((await keys.authenticate(fast.apiKey)).ratePerMinute, 5, 'at once on this replica');
      assert.equal((await keys.update(fast.record.keyId, { tier: 'enterprise' })).rateLimitPerMinute, 5, 'other changes keep it');
      assert.equal((await keys.update(fast.record.keyId, { rateLimitPerMinute: null })).rateLimitPerMinute, null);
      assert.equal((await keys.authenticate(fast.apiKey)).ratePerMinute, 360);
      for (const bad of [0, -1, 2.5, 100_001]) {
        const err = await keys.update(fast.record.keyId, { rateLimitPerMinute: bad }).then(() => assert.fail(`accepted ${bad}`), (e: unknown) => e);
        assert.ok(code('VALIDATION_FAILED')(err) && (err as TtsError).loc.join('.') === 'body.rate_limit_per_minute', String(bad));
        await assert.rejects(keys.create({ name: 'bad', rateLimitPerMinute: bad }), code('VALIDATION_FAILED'));
      }
      assert.equal((await keys.create({ name: 'max', rateLimitPerMinute: 100_000 })).record.rateLimitPerMinute, 100_000);
    });

    it('shares one generated challenge secret between replicas through the database', async (t) => {
      const db = await backend.open(t);
      const replica = await backend.open(t, db.schema);
      const [a, b] = await Promise.all([loadChallengeSecret({ secrets: new SecretRepository(db) }), loadChallengeSecret({ secrets: new SecretRepository(replica) })]);
      assert.equal(a.length, 32);
      assert.deepEqual(a, b);
      const fromEnv = await loadChallengeSecret({ envValue: 'e'.repeat(40), secrets: new SecretRepository(db) });
      assert.deepEqual(fromEnv, Buffer.from('e'.repeat(40)));
      await assert.rejects(loadChallengeSecret({ envValue: 'short', secrets: new SecretRepository(db) }), /TTS_CHALLENGE_SECRET/);
    });
  });
}
