/**
 * Server secrets shared by every replica through the database (e.g. the challenge signing key when
 * no environment variable sets one). Values are opaque strings; never log them.
 */
import type { Database } from '@tts/common/data';

/** Reads and creates `server_secrets`. */
export class SecretRepository {
  constructor(private readonly db: Database) {}

  /**
   * The secret called `name`; when none exists yet, stores `generate()` first. Replicas racing on
   * the first start all get the value of the one insert that won.
   */
  async getOrCreate(name: string, generate: () => string): Promise<string> {
    await this.db.query('INSERT INTO server_secrets (name, value) VALUES ($1::text, $2::text) ON CONFLICT (name) DO NOTHING', [name, generate()]);
    const rows = await this.db.query<{ value: string }>('SELECT value FROM server_secrets WHERE name = $1::text', [name]);
    return rows[0]!.value;
  }
}
