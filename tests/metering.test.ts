/**
 * Metering written behind the response: a synthesis request waits for no database write, the
 * quota of the next request already counts the previous one, and stopping the facade writes every
 * buffered usage event and consent record (real PostgreSQL, real facade, node and scheduler).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type Database } from '@tts/common/data';
import { TEST_DATABASE_URL } from '@tts/common/testing';
import { startPlatform, type TestPlatform } from './support/platform.js';

describe('metering behind the response', () => {
  let p: TestPlatform;
  let db: Database;

  before(async () => {
    // A flush interval longer than the test: records stay buffered until the facade stops.
    p = await startPlatform({ facade: { meteringFlushMs: 600_000 } });
    db = await openDatabase({ url: TEST_DATABASE_URL, schema: p.facade.deps.config.dbSchema });
  });
  after(async () => {
    await db.close();
    await p.stop();
  });

  const count = async (table: 'usage_events' | 'consent_audit', keyId: string): Promise<number> =>
    Number((await db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM ${table} WHERE key_id = $1::text`, [keyId]))[0]!.n);

  test('answers before writing, counts buffered usage in the quota, and writes it all on stop', async () => {
    const { keyId, apiKey } = await p.createKey({ name: 'metered', tier: 'pro', daily_char_quota: 100 });
    const speak = (chars: number, voice = 'flite:slt') => p.post('/api/tts', { text: 'a'.repeat(chars - 1) + '.', voice, consent_confirmed: true }, { 'x-api-key': apiKey });

    const first = await speak(60);
    assert.equal(first.status, 200, first.status === 200 ? '' : await first.clone().text());
    assert.equal(first.headers.get('x-quota-stage'), 'ok');
    await first.arrayBuffer();
    const failed = await speak(5, 'flite:nobody');
    assert.equal(failed.status, 422);
    assert.equal(((await failed.json()) as { code: string }).code, 'TTS_VOICE_NOT_FOUND');
    assert.equal(await count('usage_events', keyId), 0, 'nothing is written on the request path');
    assert.equal(await count('consent_audit', keyId), 0);

    // 60 buffered + 30 = 90 of 100: the quota sees the first request though it is not written yet.
    const second = await speak(30);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('x-quota-stage'), 'warning');
    await second.arrayBuffer();

    await p.facade.stop(2000);
    assert.equal(await count('usage_events', keyId), 3, 'stop writes every buffered usage event');
    assert.equal(await count('consent_audit', keyId), 3, 'and every consent record');
    const daily = await db.query<{ characters: number; requests: number }>('SELECT characters::int8 AS characters, requests::int8 AS requests FROM usage_daily WHERE key_id = $1::text', [keyId]);
    assert.deepEqual(daily.map((r) => [Number(r.characters), Number(r.requests)]), [[90, 2]], 'the daily rollup counts the successful requests once');
  });
});
