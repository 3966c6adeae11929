/**
 * The platform's API key format, written down once: `tts_<key_id>_<secret>`. `key_id` is 16
 * characters of [a-z0-9] (public: it names the key in lists, paths and usage), `secret` 40 base62
 * characters. The facade makes keys; every process that checks a presented key (the facade's
 * access control, the scheduler's gRPC callers) reads its id with `apiKeyIdOf`.
 */

/** The characters of a key id. */
export const API_KEY_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Characters in a key id. */
export const API_KEY_ID_LENGTH = 16;
/** Characters in a key's secret (base62). */
export const API_KEY_SECRET_LENGTH = 40;

const KEY_ID = `[a-z0-9]{${API_KEY_ID_LENGTH}}`;
const API_KEY = new RegExp(`^tts_(${KEY_ID})_[A-Za-z0-9]{${API_KEY_SECRET_LENGTH}}$`);
const API_KEY_ID = new RegExp(`^${KEY_ID}$`);

/** The public beginning of a key, `tts_<key_id>`: shown in lists, never secret. */
export function apiKeyPrefixOf(keyId: string): string {
  return `tts_${keyId}`;
}

/** The key string of a key id and a secret. */
export function apiKeyOf(keyId: string, secret: string): string {
  return `${apiKeyPrefixOf(keyId)}_${secret}`;
}

/** The key id of a well-formed key string, or undefined for any other string (whatever its length). */
export function apiKeyIdOf(apiKey: string): string | undefined {
  return API_KEY.exec(apiKey)?.[1];
}

/** True when `value` has the shape of a key id. */
export function isApiKeyId(value: string): boolean {
  return API_KEY_ID.test(value);
}
