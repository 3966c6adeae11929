import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openKv } from '@tts/common/kv';
import type { LexiconEntryRecord } from '../data/index.js';
import { LexiconCache } from './lexicon-cache.js';

const entry = (word: string): LexiconEntryRecord => ({ word, ipa: 'x', caseSensitive: false, createdAt: new Date(0), updatedAt: new Date(0) });

/** A loader that counts its calls and answers the current `rows`. */
function loader(rows: { current: LexiconEntryRecord[] }): { load: () => Promise<LexiconEntryRecord[]>; calls: () => number } {
  let calls = 0;
  return {
    load: () => {
      calls++;
      return Promise.resolve(rows.current);
    },
    calls: () => calls,
  };
}

describe('LexiconCache', () => {
  it('answers from memory until the lexicon changes, then reloads once', async () => {
    const kv = await openKv({ prefix: 'lexicon-cache-test' });
    const cache = new LexiconCache(kv);
    const rows = { current: [entry('tomato')] };
    const db = loader(rows);
    assert.deepEqual(await cache.get('owner:k1', db.load), [entry('tomato')]);
    assert.deepEqual(await cache.get('owner:k1', db.load), [entry('tomato')]);
    assert.equal(db.calls(), 1, 'the second read is served from memory');
    rows.current = [entry('potato')];
    await cache.changed('owner:k1');
    assert.deepEqual(await cache.get('owner:k1', db.load), [entry('potato')]);
    assert.equal(db.calls(), 2);
    await kv.close();
  });

  it('sees a change made through another replica (another cache on the same store)', async () => {
    const kv = await openKv({ prefix: 'lexicon-cache-test-2' });
    const here = new LexiconCache(kv);
    const there = new LexiconCache(kv);
    const rows = { current: [entry('a')] };
    const db = loader(rows);
    await here.get('owner:k', db.load);
    rows.current = [entry('b')];
    await there.changed('owner:k');
    assert.deepEqual(await here.get('owner:k', db.load), [entry('b')], 'the generation moved, so this replica reloads');
    await kv.close();
  });

  it('reloads after maxAgeMs even without a generation change, and keeps at most maxLexicons', async () => {
    let now = 0;
    const kv = await openKv({ prefix: 'lexicon-cache-test-3' });
    const cache = new LexiconCache(kv, { maxAgeMs: 1000, maxLexicons: 2, now: () => now });
    const db = loader({ current: [] });
    await cache.get('a', db.load);
    now = 999;
    await cache.get('a', db.load);
    assert.equal(db.calls(), 1);
    now = 1000;
    await cache.get('a', db.load);
    assert.equal(db.calls(), 2, 'expired by age');
    await cache.get('b', db.load);
    await cache.get('c', db.load); // evicts the least recently used: a
    await cache.get('c', db.load);
    await cache.get('b', db.load);
    assert.equal(db.calls(), 4);
    await cache.get('a', db.load);
    assert.equal(db.calls(), 5, 'a was evicted');
    await kv.close();
  });

  it('never throws when the store cannot take the bump', async () => {
    const warnings: string[] = [];
    const broken = { get: () => Promise.resolve(null), incrBy: () => Promise.reject(new Error('store down')) };
    const cache = new LexiconCache(broken, { logger: { warn: (m: string) => warnings.push(m) } as never });
    await cache.changed('owner:k');
    assert.equal(warnings.length, 1);
  });
});
