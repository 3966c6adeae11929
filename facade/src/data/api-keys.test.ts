import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { DatabaseError } from '@tts/common/data';
import { databaseBackends } from '@tts/common/testing';
import { ApiKeyRepository, type NewApiKey } from './api-keys.js';
import { FACADE_MIGRATIONS } from './migrations/index.js';

const secretKey = 'tts_abcdefgh12345678_S3cretS3cretS3cretS3cretS3cretS3cret01';
const newKey = (overrides: Partial<NewApiKey> = {}): NewApiKey => ({
  keyId: 'abcdefgh12345678',
  prefix: 'tts_abcdefgh12345678',
  secretHash: createHash('sha256').update(secretKey).digest('hex'),
  name: 'ci',
  tier: 'free',
  dailyCharQuota: null,
  monthlyCharQuota: null,
  rateLimitPerMinute: null,
  ...overrides,
});

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`api key repository (${backend.name})`, () => {
    after(() => backend.close());

    it('inserts a key and finds it with its hash; the secret itself is nowhere in the row', async (t) => {
      const db = await backend.open(t);
      const repo = new ApiKeyRepository(db);
      const created = await repo.insert(newKey());
      assert.equal(created.keyId, 'abcdefgh12345678');
      assert.equal(created.disabled, false);
      assert.ok(created.createdAt instanceof Date);
      const credential = await repo.findCredential('abcdefgh12345678');
      assert.equal(credential?.secretHash, newKey().secretHash);
      assert.deepEqual(credential?.record, created);
      const raw = await db.query('SELECT * FROM api_keys');
      const dump = JSON.stringify(raw);
      assert.ok(!dump.includes('S3cretS3cret'), 'no part of the secret is stored');
      assert.ok(!('secretHash' in created), 'records never carry the hash');
    });

    it('lists keys oldest first without hashes', async (t) => {
      const repo = new ApiKeyRepository(await backend.open(t));
      await repo.insert(newKey({ keyId: 'k000000000000001', name: 'first' }));
      await repo.insert(newKey({ keyId: 'k000000000000002', name: 'second', tier: 'pro' }));
      const list = await repo.list();
      assert.deepEqual(list.map((k) => k.name), ['first', 'second']);
      assert.ok(list.every((k) => !JSON.stringify(k).includes(newKey().secretHash)));
    });

    it('updates only the given fields; null clears a quota override', async (t) => {
      const repo = new ApiKeyRepository(await backend.open(t));
      const created = await repo.insert(newKey({ dailyCharQuota: 1000, monthlyCharQuota: 20000 }));
      const renamed = await repo.update(created.keyId, { name: 'renamed' });
      assert.equal(renamed?.name, 'renamed');
      assert.equal(renamed?.tier, 'free');
      assert.equal(renamed?.dailyCharQuota, 1000);
      const changed = await repo.update(created.keyId, { tier: 'pro', disabled: true, dailyCharQuota: null, monthlyCharQuota: 5_000_000_000 });
      assert.equal(changed?.tier, 'pro');
      assert.equal(changed?.disabled, true);
      assert.equal(changed?.dailyCharQuota, null);
      assert.equal(changed?.monthlyCharQuota, 5_000_000_000);
      assert.equal(changed?.name, 'renamed');
      assert.ok(changed!.updatedAt.getTime() >= created.updatedAt.getTime());
      assert.equal((await repo.update(created.keyId, { disabled: false }))?.disabled, false);
    });

    it('stores, changes and clears the per-key rate limit; other updates leave it', async (t) => {
      const repo = new ApiKeyRepository(await backend.open(t));
      const created = await repo.insert(newKey({ rateLimitPerMinute: 1000 }));
      assert.equal(created.rateLimitPerMinute, 1000);
      assert.equal((await repo.find(created.keyId))?.rateLimitPerMinute, 1000);
      assert.equal((await repo.update(created.keyId, { name: 'renamed' }))?.rateLimitPerMinute, 1000);
      assert.equal((await repo.update(created.keyId, { rateLimitPerMinute: 5 }))?.rateLimitPerMinute, 5);
      assert.equal((await repo.update(created.keyId, { rateLimitPerMinute: null }))?.rateLimitPerMinute, null);
      assert.equal((await repo.insert(newKey({ keyId: 'k000000000000003' }))).rateLimitPerMinute, null);
    });

    it('returns null for an unknown key and refuses a duplicate id', async (t) => {
      const repo = new ApiKeyRepository(await backend.open(t));
      assert.equal(await repo.find('nope'), null);
      assert.equal(await repo.findCredential('nope'), null);
      assert.equal(await repo.update('nope', { name: 'x' }), null);
      await repo.insert(newKey());
      await assert.rejects(repo.insert(newKey()), (e: unknown) => e instanceof DatabaseError && e.sqlState === '23505');
    });

    it('refuses a hash that is not SHA-256 hex, a negative quota and a rate outside 1..100000', async (t) => {
      const repo = new ApiKeyRepository(await backend.open(t));
      await assert.rejects(repo.insert(newKey({ secretHash: 'plaintext-secret' })), (e: unknown) => e instanceof DatabaseError && e.sqlState === '23514');
      await assert.rejects(repo.insert(newKey({ dailyCharQuota: -1 })), (e: unknown) => e instanceof DatabaseError && e.sqlState === '23514');
      await assert.rejects(repo.insert(newKey({ rateLimitPerMinute: 0 })), (e: unknown) => e instanceof DatabaseError && e.sqlState === '23514');
      await assert.rejects(repo.insert(newKey({ rateLimitPerMinute: 100_001 })), (e: unknown) => e instanceof DatabaseError && e.sqlState === '23514');
    });
  });
}
