import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { payloadHex, watermarkPayloadOf } from './watermark-payload.js';

test('the payload of a request id is keyed: another secret gives another payload, and the unkeyed digest is not it', () => {
  const id = '0f4c2b9e-6a59-4c1e-9f3b-1d2e3f405162';
  const a = watermarkPayloadOf('a'.repeat(32), id);
  assert.equal(watermarkPayloadOf('a'.repeat(32), id), a, 'the same secret and id give the same payload');
  assert.notEqual(watermarkPayloadOf('b'.repeat(32), id), a);
  assert.notEqual(payloadHex(a), createHash('sha256').update(id, 'utf8').digest().subarray(0, 4).toString('hex'));
  assert.notEqual(watermarkPayloadOf('a'.repeat(32), `${id}x`), a);
});

test('payloads are 32-bit, never 0 (0 means "none given" in a SpeechSpec), shown as 8 hex digits', () => {
  for (let i = 0; i < 2000; i++) {
    const p = watermarkPayloadOf('secret-of-the-test-suite-0123456789', `req-${i}`);
    assert.ok(Number.isInteger(p) && p > 0 && p <= 0xffffffff, String(p));
    assert.match(payloadHex(p), /^[0-9a-f]{8}$/);
  }
});
