import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Metadata, status } from '@grpc/grpc-js';
import { TtsError } from '../errors/tts-error.js';
import { fromServiceError, toServiceError } from './errors.js';

describe('catalogue errors over gRPC', () => {
  test('a TtsError goes out with the gRPC status its catalogue entry names and comes back with its code, field and Retry-After', () => {
    const cases = [
      [new TtsError('TTS_VOICE_NOT_FOUND', 'no such voice', { loc: ['body', 'voice'] }), status.INVALID_ARGUMENT],
      [new TtsError('TTS_NODE_OVERLOADED', undefined, { retryAfterSec: 3 }), status.RESOURCE_EXHAUSTED],
      [new TtsError('TTS_MODEL_NOT_FOUND'), status.NOT_FOUND],
    ] as const;
    for (const [err, want] of cases) {
      const out = toServiceError(err);
      assert.equal(out.code, want, err.code);
      const back = fromServiceError(out);
      assert.deepEqual([back.code, back.message, back.loc, back.retryAfterSec], [err.code, err.message, err.loc, err.retryAfterSec]);
    }
  });

  test('anything else goes out as INTERNAL_ERROR without its message; a bare transport status maps to a retryable code', () => {
    const out = toServiceError(new Error('secret detail'));
    assert.equal(out.code, status.INTERNAL);
    assert.doesNotMatch(out.details, /secret/);
    const bare = Object.assign(new Error('14 UNAVAILABLE'), { code: status.UNAVAILABLE, details: 'down', metadata: new Metadata() });
    assert.equal(fromServiceError(bare).code, 'TTS_NO_NODE_AVAILABLE');
  });
});
