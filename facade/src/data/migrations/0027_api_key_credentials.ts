import type { Migration } from '@tts/common/data';

/**
 * The facade's published contract for other processes that check API keys on its database (the
 * scheduler's gRPC callers; ARCHITECTURE.md, "Tables and the contracts between packages"): one row
 * per key with the columns below, whatever becomes of `api_keys` behind it. A change to these
 * columns or their meaning is a new view under another name, never an edit of this one.
 * - key_id: the public id of the key, as in its string `tts_<key_id>_<secret>`;
 * - secret_hash: SHA-256 (lower-case hex) of the whole key string;
 * - tier: the tier the key's calls act as;
 * - disabled: true when the key is refused even with its secret.
 */
export const migration: Migration = {
  version: 27,
  name: 'api_key_credentials',
  sql: `
CREATE VIEW api_key_credentials AS
  SELECT key_id, secret_hash, tier, disabled FROM api_keys;
`,
};
