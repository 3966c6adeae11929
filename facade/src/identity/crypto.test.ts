import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sameSecret } from '@tts/common';
import { hmac, randomString, sameDigest, sha256, sha256Hex } from './crypto.js';

describe('identity crypto', () => {
  it('draws random strings of the requested length from the alphabet', () => {
    const s = randomString(200, 'ab');
    assert.equal(s.length, 200);
    assert.match(s, /^[ab]+$/);
    assert.ok(s.includes('a') && s.includes('b'));
    assert.match(randomString(40), /^[A-Za-z0-9]{40}$/);
    assert.notEqual(randomString(40), randomString(40));
  });

  it('separates HMAC purposes and part boundaries', () => {
    const key = Buffer.alloc(32, 7);
    assert.ok(!sameDigest(hmac(key, 'challenge', 'x'), hmac(key, 'pass', 'x')));
    assert.ok(!sameDigest(hmac(key, 'p', 'ab', 'c'), hmac(key, 'p', 'a', 'bc')));
    assert.ok(sameDigest(hmac(key, 'p', 'ab', 'c'), hmac(key, 'p', 'ab', 'c')));
  });

  it('compares secrets of any length and digests of different lengths without throwing', () => {
    assert.equal(sameSecret('a-secret', 'a-secret'), true);
    assert.equal(sameSecret('a-secret', 'a-secret-but-longer'), false);
    assert.equal(sameDigest(sha256('x'), sha256('x').subarray(0, 16)), false);
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
