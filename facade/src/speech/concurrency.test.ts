import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import { InFlightLimiter } from './concurrency.js';

describe('InFlightLimiter', () => {
  it('refuses a subject\'s place beyond its cap with TTS_CONCURRENCY_LIMIT (429, Retry-After 1), others unaffected, and frees a place once', () => {
    const limiter = new InFlightLimiter();
    const first = limiter.acquire('a', 2);
    limiter.acquire('a', 2);
    assert.throws(() => limiter.acquire('a', 2), (e: unknown) => e instanceof TtsError && e.code === 'TTS_CONCURRENCY_LIMIT' && e.spec.http === 429 && e.retryAfterSec === 1);
    assert.doesNotThrow(() => limiter.acquire('b', 2));
    first();
    first(); // a second call frees nothing more
    assert.equal(limiter.count('a'), 1);
    limiter.acquire('a', 2);
    assert.throws(() => limiter.acquire('a', 2), (e: unknown) => e instanceof TtsError && e.code === 'TTS_CONCURRENCY_LIMIT');
  });
});
