/**
 * API keys as the scheduler checks them for internal services that call gRPC directly. Keys are
 * created and managed by the facade (`api_keys`, same database and schema as the jobs); the
 * scheduler only reads one row and compares the SHA-256 of the presented key with it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Database } from '@tts/common/data';

/** A key's format: `tts_<key_id>_<secret>` (the facade's identity/api-keys.ts makes them). */
const KEY_PATTERN = /^tts_([a-z0-9]{16})_[A-Za-z0-9]{40}$/;
/** Compared against when the key id is unknown, so a miss takes as long as a wrong secret. */
const DUMMY_DIGEST = createHash('sha256').update('no such key').digest();

/** A verified key: the owner and tier its calls act as. */
export interface VerifiedApiKey {
  readonly keyId: string;
  readonly tier: string;
}

/** Why a key was refused. */
export type ApiKeyRefusal = 'invalid' | 'disabled';

/** Reads `api_keys`. */
export class ApiKeyReader {
  constructor(private readonly db: Database) {}

  /** The key's owner and tier, or why it is refused (malformed, unknown, wrong secret: 'invalid'). */
  async verify(apiKey: string): Promise<VerifiedApiKey | ApiKeyRefusal> {
    const keyId = apiKey.length <= 80 ? KEY_PATTERN.exec(apiKey)?.[1] : undefined;
    if (keyId === undefined) return 'invalid';
    const rows = await this.db.query<{ secret_hash: string; tier: string; disabled: boolean }>('SELECT secret_hash, tier, disabled FROM api_keys WHERE key_id = $1::text', [keyId]);
    const row = rows[0];
    const matches = timingSafeEqual(createHash('sha256').update(apiKey).digest(), row === undefined ? DUMMY_DIGEST : Buffer.from(row.secret_hash, 'hex'));
    if (row === undefined || !matches) return 'invalid';
    if (row.disabled) return 'disabled';
    return { keyId, tier: row.tier };
  }
}
