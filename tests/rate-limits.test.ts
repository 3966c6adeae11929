/**
 * Per-key and per-tier rate limits over HTTP, on PostgreSQL + Redis and on the embedded store
 * (PGlite and the in-process limiter): a key's own `rate_limit_per_minute` (set on create, changed
 * by PATCH, null = its tier's default) is what the limiter enforces and what the RateLimit-*
 * headers show; the api_key profile's 360/min stays the default; out-of-range values are refused
 * with 422 VALIDATION_FAILED; with two replicas, a change reaches the other one within its
 * identity cache time; tiers take the rates an administrator configures (TTS_TIER_RATE_PER_MINUTE).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { freshPrefix, freshSchemaName, TEST_DATABASE_URL, TEST_REDIS_URL } from '@tts/common/testing';
import { start as startFacade, type FacadeConfig, type RunningFacade } from '@tts/facade';
import { postJson, startPlatform, waitFor, type TestPlatform } from './support/platform.js';

/** An API key as GET /api/auth/keys lists it. */
interface KeyView {
  readonly key_id: string;
  readonly name: string;
  readonly rate_limit_per_minute: number | null;
}

/** An error body. */
interface ErrorBody {
  readonly code: string;
  readonly detail: readonly { readonly loc: readonly (string | number)[] }[];
}

/** The operation every test calls: cheap, API-key authenticated, counted against the api_key profile. */
const COUNTED_PATH = '/api/usage/summary';

function suite(label: string, embedded: boolean): void {
  describe(`per-key rate limits (${label})`, () => {
    let p: TestPlatform;
    const schema = freshSchemaName();
    const prefix = freshPrefix();
    const hubTokenKey = randomBytes(32).toString('hex');

    before(async () => {
      p = await startPlatform({
        node: { engines: ['flite'], defaultVoice: 'flite:slt' },
        facade: { defaultVoice: 'flite:slt', hubTokenKey, ...(embedded ? { databaseUrl: undefined, redisUrl: undefined, ephemeral: true } : { dbSchema: schema, kvPrefix: prefix }) },
      });
      const health = (await (await fetch(`${p.url}/api/health`)).json()) as { mode: string };
      assert.equal(health.mode, embedded ? 'embedded' : 'distributed');
    });
    after(async () => {
      await p.stop();
    });

    const admin = (): Record<string, string> => ({ 'x-admin-key': p.adminKey });
    const call = (apiKey: string, url = p.url): Promise<Response> => fetch(`${url}${COUNTED_PATH}`, { headers: { 'x-api-key': apiKey } });
    const patch = (keyId: string, body: unknown): Promise<Response> =>
      fetch(`${p.url}/api/auth/keys/${keyId}`, { method: 'PATCH', headers: { 'content-type': 'application/json', ...admin() }, body: JSON.stringify(body) });
    const listed = async (keyId: string): Promise<KeyView> => {
      const res = await fetch(`${p.url}/api/auth/keys`, { headers: admin() });
      assert.equal(res.status, 200);
      const found = ((await res.json()) as { keys: KeyView[] }).keys.find((k) => k.key_id === keyId);
      assert.ok(found, `key ${keyId} is listed`);
      return found;
    };
    /** `n` calls, `concurrency` at a time; the statuses counted and the last answer's headers. */
    const burst = async (apiKey: string, n: number, concurrency = 30): Promise<{ statuses: Map<number, number>; limits: Set<string> }> => {
      const statuses = new Map<number, number>();
      const limits = new Set<string>();
      for (let done = 0; done < n; done += concurrency) {
        const answers = await Promise.all(
          Array.from({ length: Math.min(concurrency, n - done) }, async () => {
            const res = await call(apiKey);
            await res.arrayBuffer();
            return res;
          }),
        );
        for (const res of answers) {
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          limits.add(res.headers.get('ratelimit-limit') ?? 'absent');
        }
      }
      return { statuses, limits };
    };

    test('a key with limit 5: five calls pass, the sixth gets 429 RATE_LIMITED with its own limit in the headers', async () => {
      const { keyId, apiKey } = await p.createKey({ name: 'five', rate_limit_per_minute: 5 });
      assert.equal((await listed(keyId)).rate_limit_per_minute, 5);
      for (let i = 0; i < 5; i++) {
        const res = await call(apiKey);
        assert.equal(res.status, 200, `call ${i + 1}`);
        assert.equal(res.headers.get('ratelimit-limit'), '5');
        assert.equal(res.headers.get('ratelimit-remaining'), String(4 - i));
        assert.equal(res.headers.get('ratelimit-policy'), '5;w=60');
      }
      const over = await call(apiKey);
      assert.equal(over.status, 429);
      assert.equal(((await over.json()) as ErrorBody).code, 'RATE_LIMITED');
      assert.equal(over.headers.get('ratelimit-limit'), '5');
      assert.equal(over.headers.get('ratelimit-remaining'), '0');
      assert.equal(over.headers.get('ratelimit-policy'), '5;w=60');
      const retryAfter = Number(over.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      // Another key keeps its own window.
      assert.equal((await p.get(COUNTED_PATH)).status, 200);
    });

    test('a key with limit 1000 is not limited at 361 calls', async () => {
      const { apiKey } = await p.createKey({ name: 'thousand', rate_limit_per_minute: 1000 });
      const { statuses, limits } = await burst(apiKey, 361);
      assert.deepEqual([...statuses], [[200, 361]]);
      assert.deepEqual([...limits], ['1000']);
      const next = await call(apiKey);
      assert.equal(next.status, 200);
      assert.equal(next.headers.get('ratelimit-remaining'), String(1000 - 362));
    });

    test('the default stays 360 a minute: a key without its own limit, and every tier', async () => {
      const tiers = (await (await fetch(`${p.url}/api/auth/tiers`)).json()) as { tiers: { name: string; rate_per_minute: number }[] };
      assert.deepEqual(
        tiers.tiers.map((t) => [t.name, t.rate_per_minute]),
        [['free', 360], ['pro', 360], ['enterprise', 360]],
      );
      const { keyId, apiKey } = await p.createKey({ name: 'default', tier: 'free' });
      assert.equal((await listed(keyId)).rate_limit_per_minute, null);
      const { statuses, limits } = await burst(apiKey, 360);
      assert.deepEqual([...statuses], [[200, 360]]);
      assert.deepEqual([...limits], ['360']);
      const over = await call(apiKey);
      assert.equal(over.status, 429);
      assert.equal(over.headers.get('ratelimit-limit'), '360');
    });

    test('PATCH changes the limit from the next call: raised, back to the tier default, lowered', async () => {
      const { keyId, apiKey } = await p.createKey({ name: 'changing', rate_limit_per_minute: 5 });
      for (let i = 0; i < 5; i++) assert.equal((await call(apiKey)).status, 200);
      assert.equal((await call(apiKey)).status, 429);

      const raised = await patch(keyId, { rate_limit_per_minute: 1000 });
      assert.equal(raised.status, 200);
      assert.equal(((await raised.json()) as KeyView).rate_limit_per_minute, 1000);
      assert.equal((await listed(keyId)).rate_limit_per_minute, 1000);
      const afterRaise = await call(apiKey);
      assert.equal(afterRaise.status, 200);
      assert.equal(afterRaise.headers.get('ratelimit-limit'), '1000');
      assert.equal(afterRaise.headers.get('ratelimit-remaining'), String(1000 - 6), 'the calls already counted stay in the window');

      const cleared = await patch(keyId, { rate_limit_per_minute: null });
      assert.equal(((await cleared.json()) as KeyView).rate_limit_per_minute, null);
      const atDefault = await call(apiKey);
      assert.equal(atDefault.status, 200);
      assert.equal(atDefault.headers.get('ratelimit-limit'), '360');

      const renamed = await patch(keyId, { name: 'renamed' });
      assert.equal(((await renamed.json()) as KeyView).rate_limit_per_minute, null, 'other changes leave it');

      assert.equal((await patch(keyId, { rate_limit_per_minute: 3 })).status, 200);
      const lowered = await call(apiKey);
      assert.equal(lowered.status, 429, 'seven calls already counted, the limit is now 3');
      assert.equal(lowered.headers.get('ratelimit-limit'), '3');
    });

    test('values outside 1..100000 are refused with 422 VALIDATION_FAILED naming the field; the key keeps its limit', async () => {
      const { keyId } = await p.createKey({ name: 'bounded', rate_limit_per_minute: 50 });
      for (const bad of [0, -3, 100_001, 2.5, '100', true]) {
        const created = await postJson(`${p.url}/api/auth/keys`, { name: 'bad', rate_limit_per_minute: bad }, admin());
        assert.equal(created.status, 422, `create with ${JSON.stringify(bad)}`);
        const body = (await created.json()) as ErrorBody;
        assert.equal(body.code, 'VALIDATION_FAILED');
        assert.ok(body.detail.some((d) => d.loc.includes('rate_limit_per_minute')), JSON.stringify(body.detail));
        const changed = await patch(keyId, { rate_limit_per_minute: bad });
        assert.equal(changed.status, 422, `patch with ${JSON.stringify(bad)}`);
        assert.equal(((await changed.json()) as ErrorBody).code, 'VALIDATION_FAILED');
      }
      assert.equal((await listed(keyId)).rate_limit_per_minute, 50);
      const highest = await patch(keyId, { rate_limit_per_minute: 100_000 });
      assert.equal(highest.status, 200);
      assert.equal(((await highest.json()) as KeyView).rate_limit_per_minute, 100_000);
      const lowest = await patch(keyId, { rate_limit_per_minute: 1 });
      assert.equal(((await lowest.json()) as KeyView).rate_limit_per_minute, 1);
    });

    if (!embedded) {
      /** A second facade on the same PostgreSQL schema and Redis prefix. */
      const startReplica = (options: Partial<FacadeConfig>): Promise<RunningFacade> =>
        startFacade({
          host: '127.0.0.1',
          port: 0,
          schedulerAddress: p.scheduler.address,
          databaseUrl: TEST_DATABASE_URL,
          dbSchema: schema,
          redisUrl: TEST_REDIS_URL,
          kvPrefix: prefix,
          adminKey: p.adminKey,
          hubTokenKey,
          hubUrl: 'http://127.0.0.1:9',
          ...options,
        });

      test('an administrator gives tiers their own rates (TTS_TIER_RATE_PER_MINUTE): keys of the tier follow it, a key\'s own limit still wins', async () => {
        let replica: RunningFacade | undefined;
        try {
          replica = await startReplica({ tierRates: { pro: 1200, free: 4 } });
          const tiers = (await (await fetch(`${replica.url}/api/auth/tiers`)).json()) as { tiers: { name: string; rate_per_minute: number }[] };
          assert.deepEqual(
            tiers.tiers.map((t) => [t.name, t.rate_per_minute]),
            [['free', 4], ['pro', 1200], ['enterprise', 360]],
          );
          const pro = await p.createKey({ name: 'pro-tier', tier: 'pro' });
          const first = await call(pro.apiKey, replica.url);
          assert.equal(first.status, 200);
          assert.equal(first.headers.get('ratelimit-limit'), '1200');
          assert.equal(first.headers.get('ratelimit-policy'), '1200;w=60');
          const statuses: number[] = [];
          for (let i = 0; i < 400; i += 40) statuses.push(...(await Promise.all(Array.from({ length: 40 }, async () => (await call(pro.apiKey, replica!.url)).status))));
          assert.deepEqual([...new Set(statuses)], [200], 'above 360 a minute for the tier');
          const free = await p.createKey({ name: 'free-tier', tier: 'free' });
          for (let i = 0; i < 4; i++) assert.equal((await call(free.apiKey, replica.url)).status, 200, `free call ${i + 1}`);
          const over = await call(free.apiKey, replica.url);
          assert.equal(over.status, 429);
          assert.equal(over.headers.get('ratelimit-limit'), '4');
          const own = await p.createKey({ name: 'pro-own', tier: 'pro', rate_limit_per_minute: 7 });
          assert.equal((await call(own.apiKey, replica.url)).headers.get('ratelimit-limit'), '7');
        } finally {
          await replica?.stop(2000);
        }
      });

      test('another replica applies a change within its identity cache time (one window in Redis)', async () => {
        let replica: RunningFacade | undefined;
        try {
          replica = await startReplica({ identityCacheMs: 300 });
          const { keyId, apiKey } = await p.createKey({ name: 'replicated', rate_limit_per_minute: 5 });
          const first = await call(apiKey, replica.url);
          assert.equal(first.headers.get('ratelimit-limit'), '5');
          assert.equal((await call(apiKey)).headers.get('ratelimit-remaining'), '3', 'both replicas count in one window');
          assert.equal((await patch(keyId, { rate_limit_per_minute: 1000 })).status, 200);
          let seen = '';
          await waitFor(async () => {
            const res = await call(apiKey, replica!.url);
            await res.arrayBuffer();
            seen = res.headers.get('ratelimit-limit') ?? '';
            return seen === '1000';
          }, 10_000, 'the new limit on the other replica');
          assert.equal(seen, '1000');
        } finally {
          await replica?.stop(2000);
        }
      });
    }
  });
}

suite('PostgreSQL + Redis', false);
suite('embedded', true);
