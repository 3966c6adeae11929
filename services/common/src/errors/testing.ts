/** Test support of the error catalogue (tests only). */
import assert from 'node:assert/strict';
import { TtsError } from './tts-error.js';
import type { ErrorCode } from './catalogue.js';

/**
 * For `assert.throws` and `assert.rejects`: checks that the error is a TtsError of catalogue code
 * `code` (an assertion that names what came instead when it is not).
 */
export function isTtsError(code: ErrorCode): (error: unknown) => true {
  return (error) => {
    assert.ok(error instanceof TtsError, `expected TtsError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  };
}
