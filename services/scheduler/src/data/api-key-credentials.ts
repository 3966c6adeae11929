/**
 * The scheduler's `CallerAuthenticator` over the facade's published contract: the
 * `api_key_credentials` view (key_id, secret_hash, tier, disabled) the facade's migration 27
 * creates in its schema. The scheduler reads it when it shares that schema with the facade (the
 * one-machine platform, or both on one PostgreSQL schema); a job database without the view (the
 * scheduler on a database of its own) knows no key, and every key is refused as invalid.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { apiKeyIdOf, type Logger } from '@tts/common';
import { DatabaseError, type Database } from '@tts/common/data';
import type { ApiKeyRefusal, CallerAuthenticator, VerifiedApiKey } from '../domain/caller-authenticator.js';

/** Compared against when the key id is unknown, so a miss takes as long as a wrong secret. */
const DUMMY_DIGEST = createHash('sha256').update('no such key').digest();
/** SQLSTATE of a missing table or view (undefined_table). */
const UNDEFINED_TABLE = '42P01';

/** Checks keys against the `api_key_credentials` view of the job database. */
export class ApiKeyCredentialsView implements CallerAuthenticator {
  private warned = false;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  async verifyApiKey(apiKey: string): Promise<VerifiedApiKey | ApiKeyRefusal> {
    const keyId = apiKeyIdOf(apiKey);
    if (keyId === undefined) return 'invalid';
    const row = await this.credential(keyId);
    const matches = timingSafeEqual(createHash('sha256').update(apiKey).digest(), row === undefined ? DUMMY_DIGEST : Buffer.from(row.secret_hash, 'hex'));
    if (row === undefined || !matches) return 'invalid';
    if (row.disabled) return 'disabled';
    return { keyId, tier: row.tier };
  }

  private async credential(keyId: string): Promise<{ secret_hash: string; tier: string; disabled: boolean } | undefined> {
    try {
      const rows = await this.db.query<{ secret_hash: string; tier: string; disabled: boolean }>('SELECT secret_hash, tier, disabled FROM api_key_credentials WHERE key_id = $1::text', [keyId]);
      return rows[0];
    } catch (err) {
      if (!(err instanceof DatabaseError && err.sqlState === UNDEFINED_TABLE)) throw err;
      if (!this.warned) {
        this.warned = true;
        this.logger.warn('an API key was presented, but the job database has no api_key_credentials view (the facade migrates it in its own schema): every key is refused', { schema: this.db.schema });
      }
      return undefined;
    }
  }
}
