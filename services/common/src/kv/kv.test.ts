import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { MemoryKv, openKv } from './index.js';
import { freshPrefix, kvBackends } from './testing.js';

const nowUnix = (): number => Date.now() / 1000;

for (const backend of kvBackends()) {
  describe(`kv (${backend.name})`, () => {
    it('sets a key only when absent, reads and deletes it', async (t) => {
      const kv = await backend.open(t);
      assert.equal(await kv.setIfAbsent('a', 'one', 60), true);
      assert.equal(await kv.setIfAbsent('a', 'two', 60), false);
      assert.equal(await kv.get('a'), 'one');
      assert.equal(await kv.del('a'), true);
      assert.equal(await kv.get('a'), null);
      assert.equal(await kv.del('a'), false);
      assert.equal(await kv.setIfAbsent('a', 'three', 60), true);
    });

    it('expires a key after its TTL', async (t) => {
      const kv = await backend.open(t);
      assert.equal(await kv.setIfAbsent('short', 'v', 0.15), true);
      assert.equal(await kv.get('short'), 'v');
      await sleep(250);
      assert.equal(await kv.get('short'), null);
      assert.equal(await kv.setIfAbsent('short', 'again', 60), true);
    });

    it('lets exactly one of many concurrent setIfAbsent calls win', async (t) => {
      const kv = await backend.open(t);
      const other = backend.shared ? await backend.open(t, kv.prefix) : kv;
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? other : kv).setIfAbsent('once', String(i), 60)));
      assert.equal(results.filter(Boolean).length, 1);
    });

    it('increments counters, setting the TTL only when the key is created', async (t) => {
      const kv = await backend.open(t);
      assert.equal(await kv.incrBy('n', 5, 0.4), 5);
      assert.equal(await kv.incrBy('n', -2, 60), 3);
      assert.equal(await kv.get('n'), '3');
      await sleep(500);
      assert.equal(await kv.get('n'), null, 'the second increment did not extend the first TTL');
      assert.equal(await kv.incrBy('n', 1, 60), 1);
    });

    it('keeps prefixes apart', async (t) => {
      const a = await backend.open(t);
      const b = await backend.open(t);
      await a.setIfAbsent('k', 'a', 60);
      assert.equal(await b.get('k'), null);
      assert.equal(await b.setIfAbsent('k', 'b', 60), true);
      assert.equal(await a.get('k'), 'a');
    });

    it('allows exactly the limit, then refuses with a sensible Retry-After', async (t) => {
      const kv = await backend.open(t);
      const rule = { limit: 30, windowSec: 60 };
      for (let i = 0; i < 30; i++) {
        const d = await kv.rateLimiter.consume('client', rule);
        assert.equal(d.allowed, true, `call ${i + 1}`);
        assert.equal(d.remaining, 29 - i);
        assert.equal(d.limit, 30);
        assert.equal(d.windowSec, 60);
        assert.equal(d.retryAfterSec, 0);
      }
      const refused = await kv.rateLimiter.consume('client', rule);
      assert.equal(refused.allowed, false);
      assert.equal(refused.remaining, 0);
      assert.ok(refused.retryAfterSec >= 59 && refused.retryAfterSec <= 60, `retryAfterSec ${refused.retryAfterSec}`);
      assert.ok(Math.abs(refused.resetUnix - (nowUnix() + 60)) <= 2, `resetUnix ${refused.resetUnix}`);
      const otherKey = await kv.rateLimiter.consume('another-client', rule);
      assert.equal(otherKey.allowed, true, 'keys have separate windows');
      assert.equal(otherKey.remaining, 29);
    });

    it('slides the window: calls free up as they age out, refused calls are not counted', async (t) => {
      const kv = await backend.open(t);
      const rule = { limit: 2, windowSec: 2 };
      assert.equal((await kv.rateLimiter.consume('w', rule)).allowed, true); // t = 0
      // 1.1 s, not 1 s: a timer may fire a millisecond before Date.now() says 1 s passed, and the
      // first call would then leave the window in just over a second (Retry-After 2, not 1).
      await sleep(1100);
      assert.equal((await kv.rateLimiter.consume('w', rule)).allowed, true); // t = 1.1
      const refused = await kv.rateLimiter.consume('w', rule);
      assert.equal(refused.allowed, false);
      assert.equal(refused.retryAfterSec, 1);
      await sleep(1100); // t = 2.2: the first call left the window, the second has not
      const again = await kv.rateLimiter.consume('w', rule);
      assert.equal(again.allowed, true);
      assert.equal(again.remaining, 0);
      assert.equal((await kv.rateLimiter.consume('w', rule)).allowed, false);
    });

    it('never exceeds the limit under many concurrent callers' + (backend.shared ? ' on two connections' : ''), async (t) => {
      const kv = await backend.open(t);
      const second = backend.shared ? await backend.open(t, kv.prefix) : kv;
      const rule = { limit: 30, windowSec: 60 };
      const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? second : kv).rateLimiter.consume('hot', rule)));
      assert.equal(decisions.filter((d) => d.allowed).length, 30);
      const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((a, b) => a - b);
      assert.deepEqual(remaining, Array.from({ length: 30 }, (_, i) => i), 'every allowed call saw a distinct count');
    });

    it('rejects invalid rules and TTLs', async (t) => {
      const kv = await backend.open(t);
      await assert.rejects(kv.rateLimiter.consume('x', { limit: 0, windowSec: 60 }), RangeError);
      await assert.rejects(kv.rateLimiter.consume('x', { limit: 1.5, windowSec: 60 }), RangeError);
      await assert.rejects(kv.rateLimiter.consume('x', { limit: 5, windowSec: 0 }), RangeError);
      await assert.rejects(kv.setIfAbsent('x', 'v', 0), RangeError);
      await assert.rejects(kv.incrBy('x', 0.5, 10), RangeError);
    });
  });
}

describe('kv (memory, with a manual clock)', () => {
  it('treats a call exactly one window old as gone and reports reset and retry times', async () => {
    let now = 1_700_000_000_000; // ms
    const kv = new MemoryKv({ prefix: 'clock', now: () => now });
    const rule = { limit: 2, windowSec: 10 };
    const first = await kv.rateLimiter.consume('k', rule);
    assert.deepEqual(first, { allowed: true, limit: 2, remaining: 1, resetUnix: 1_700_000_010, retryAfterSec: 0, windowSec: 10 });
    now += 4_000;
    assert.equal((await kv.rateLimiter.consume('k', rule)).resetUnix, 1_700_000_014);
    const refused = await kv.rateLimiter.consume('k', rule);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSec, 6);
    now += 6_000; // the first call is now exactly windowSec old
    const freed = await kv.rateLimiter.consume('k', rule);
    assert.equal(freed.allowed, true);
    assert.equal(freed.remaining, 0);
  });

  it('refuses an empty or spaced prefix', async () => {
    await assert.rejects(openKv({ prefix: '' }), RangeError);
    await assert.rejects(openKv({ prefix: 'a b' }), RangeError);
    assert.ok(freshPrefix().startsWith('test:'));
  });
});

describe('kv (redis, failure)', () => {
  it('rejects when the server is unreachable instead of hanging', async () => {
    const started = Date.now();
    await assert.rejects(openKv({ url: 'redis://127.0.0.1:1', prefix: 'unreachable' }));
    assert.ok(Date.now() - started < 5000);
  });
});
