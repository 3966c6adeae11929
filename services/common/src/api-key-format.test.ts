import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiKeyIdOf, apiKeyOf, apiKeyPrefixOf, isApiKeyId } from './api-key-format.js';

describe('api key format', () => {
  const keyId = 'a1b2c3d4e5f6g7h8';
  const key = apiKeyOf(keyId, 'Zz09'.repeat(10));

  it('writes tts_<key_id>_<secret> and reads the key id back', () => {
    assert.equal(key, `tts_${keyId}_${'Zz09'.repeat(10)}`);
    assert.equal(apiKeyPrefixOf(keyId), `tts_${keyId}`);
    assert.equal(apiKeyIdOf(key), keyId);
    assert.ok(isApiKeyId(keyId));
  });

  it('reads no key id from anything else', () => {
    for (const other of [`${key} `, ` ${key}`, key.slice(0, -1), `${key}x`, key.replace('tts_', 'tts-'), apiKeyOf(keyId.toUpperCase(), 'Z'.repeat(40)), apiKeyOf(keyId, `${'Z'.repeat(39)}_`), '', `${key}${'x'.repeat(100_000)}`]) {
      assert.equal(apiKeyIdOf(other), undefined, other.slice(0, 80));
    }
    for (const other of ['', keyId.slice(1), `${keyId}0`, keyId.toUpperCase(), `${keyId.slice(1)}-`]) assert.equal(isApiKeyId(other), false, other);
  });
});
