/**
 * Identity benchmark (issue 3): the work the access middleware does per request — verify the API
 * key (hash + constant-time compare, key record cached 2 s or read from PostgreSQL) and count the
 * call in the Redis rate limiter (one Lua script) — against the real PostgreSQL and Redis on
 * loopback. Writes bench/results/identity.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '@tts/common/data';
import { ApiKeyRepository, ApiKeyService, FACADE_MIGRATIONS, RateLimitService } from '@tts/facade/testing';
import { freshSchemaName, TEST_DATABASE_URL, freshPrefix, TEST_REDIS_URL } from '@tts/common/testing';
import { openKv } from '@tts/common/kv';
import { r, summary } from './support.js';

const N = Number(process.env['BENCH_IDENTITY_N'] ?? 3000);
const schema = freshSchemaName();
const prefix = freshPrefix();
const db = await openDatabase({ url: TEST_DATABASE_URL, schema, maxConnections: 4, migrations: FACADE_MIGRATIONS });
const kv = await openKv({ url: TEST_REDIS_URL, prefix });
const out: Record<string, unknown> = { date: new Date().toISOString(), loadavg_start: loadavg().map((x) => r(x)), n: N };
try {
  for (const [label, cacheTtlMs] of [['key cache on (2 s)', 2000], ['key cache off', 0]] as const) {
    const keys = new ApiKeyService({ repository: new ApiKeyRepository(db), cacheTtlMs });
    const limits = new RateLimitService(kv.rateLimiter);
    // Many keys so no key reaches its 360/min limit: every call does the full limiter work.
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => keys.create({ name: `bench-${i}`, tier: 'enterprise' })));
    const times: number[] = [];
    for (let i = 0; i < N + 200; i++) {
      const apiKey = created[i % created.length]!.apiKey;
      const t = performance.now();
      const key = await keys.authenticate(apiKey);
      const decision = await limits.consume('api_key', `${label}:${key.record.keyId}:${Math.floor(i / 300)}`, key.ratePerMinute);
      const ms = performance.now() - t;
      if (!decision.allowed) throw new Error('rate limited during the bench');
      if (i >= 200) times.push(ms);
    }
    const s = summary(times);
    out[label] = { p50_ms: r(s.p50, 3), p95_ms: r(s.p95, 3), p99_ms: r(s.p99, 3) };
  }
} finally {
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  if (kv.backend.kind === 'redis') {
    const found: string[] = [];
    for await (const batch of kv.backend.client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) found.push(...batch);
    if (found.length > 0) await kv.backend.client.unlink(found);
  }
  await kv.close();
  await db.close();
}
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/identity.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
