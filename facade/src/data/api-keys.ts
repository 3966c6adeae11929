/**
 * API key rows. The secret is never stored: only its SHA-256 (hex), which only `findCredential`
 * reads; every other read leaves the column out.
 */
import type { Database } from '@tts/common/data';

/** An API key as listed and returned to administrators (no secret, no hash). */
export interface ApiKeyRecord {
  /** Public identifier, also part of the key string. */
  readonly keyId: string;
  /** Public beginning of the key string, for recognizing a key in lists. */
  readonly prefix: string;
  readonly name: string;
  /** Tier name (see the identity tiers). */
  readonly tier: string;
  readonly disabled: boolean;
  /** Per-key override of the tier's daily character quota; null uses the tier's. */
  readonly dailyCharQuota: number | null;
  /** Per-key override of the tier's monthly character quota; null uses the tier's. */
  readonly monthlyCharQuota: number | null;
  /** Per-key rate limit in calls per minute, overriding the tier's default; null uses the tier's. */
  readonly rateLimitPerMinute: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A key row with its stored hash, for verification only. */
export interface ApiKeyCredential {
  readonly record: ApiKeyRecord;
  /** SHA-256 of the full key string, lower-case hex. */
  readonly secretHash: string;
}

/** A new key row. */
export interface NewApiKey {
  readonly keyId: string;
  readonly prefix: string;
  readonly secretHash: string;
  readonly name: string;
  readonly tier: string;
  readonly dailyCharQuota: number | null;
  readonly monthlyCharQuota: number | null;
  readonly rateLimitPerMinute: number | null;
}

/**
 * A partial update. An absent field is left unchanged; for the quota and rate overrides, `null`
 * removes the override.
 */
export interface ApiKeyUpdate {
  readonly name?: string;
  readonly tier?: string;
  readonly disabled?: boolean;
  readonly dailyCharQuota?: number | null;
  readonly monthlyCharQuota?: number | null;
  readonly rateLimitPerMinute?: number | null;
}

interface ApiKeyRow {
  key_id: string;
  prefix: string;
  name: string;
  tier: string;
  disabled: boolean;
  daily_char_quota: number | null;
  monthly_char_quota: number | null;
  rate_limit_per_minute: number | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'key_id, prefix, name, tier, disabled, daily_char_quota, monthly_char_quota, rate_limit_per_minute, created_at, updated_at';

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    prefix: row.prefix,
    name: row.name,
    tier: row.tier,
    disabled: row.disabled,
    dailyCharQuota: row.daily_char_quota,
    monthlyCharQuota: row.monthly_char_quota,
    rateLimitPerMinute: row.rate_limit_per_minute,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Reads and writes `api_keys`. */
export class ApiKeyRepository {
  constructor(private readonly db: Database) {}

  /** Inserts a key; rejects (DatabaseError 23505) when the key id exists. */
  async insert(key: NewApiKey): Promise<ApiKeyRecord> {
    const rows = await this.db.query<ApiKeyRow>(
      `INSERT INTO api_keys (key_id, prefix, secret_hash, name, tier, daily_char_quota, monthly_char_quota, rate_limit_per_minute)
       VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint, $7::bigint, $8::integer)
       RETURNING ${COLUMNS}`,
      [key.keyId, key.prefix, key.secretHash, key.name, key.tier, key.dailyCharQuota, key.monthlyCharQuota, key.rateLimitPerMinute],
    );
    return toRecord(rows[0]!);
  }

  /** The key with its stored hash, or null when no key has this id. */
  async findCredential(keyId: string): Promise<ApiKeyCredential | null> {
    const rows = await this.db.query<ApiKeyRow & { secret_hash: string }>(
      `SELECT ${COLUMNS}, secret_hash FROM api_keys WHERE key_id = $1::text`,
      [keyId],
    );
    const row = rows[0];
    return row === undefined ? null : { record: toRecord(row), secretHash: row.secret_hash };
  }

  /** The key, or null. */
  async find(keyId: string): Promise<ApiKeyRecord | null> {
    const rows = await this.db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE key_id = $1::text`, [keyId]);
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }

  /** Every key, oldest first. */
  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, key_id`);
    return rows.map(toRecord);
  }

  /** Applies `update`; resolves to the updated key, or null when no key has this id. */
  async update(keyId: string, update: ApiKeyUpdate): Promise<ApiKeyRecord | null> {
    const rows = await this.db.query<ApiKeyRow>(
      `UPDATE api_keys SET
         name = COALESCE($2::text, name),
         tier = COALESCE($3::text, tier),
         disabled = COALESCE($4::boolean, disabled),
         daily_char_quota = CASE WHEN $5::boolean THEN $6::bigint ELSE daily_char_quota END,
         monthly_char_quota = CASE WHEN $7::boolean THEN $8::bigint ELSE monthly_char_quota END,
         rate_limit_per_minute = CASE WHEN $9::boolean THEN $10::integer ELSE rate_limit_per_minute END,
         updated_at = now()
       WHERE key_id = $1::text
       RETURNING ${COLUMNS}`,
      [
        keyId,
        update.name ?? null,
        update.tier ?? null,
        update.disabled ?? null,
        update.dailyCharQuota !== undefined,
        update.dailyCharQuota ?? null,
        update.monthlyCharQuota !== undefined,
        update.monthlyCharQuota ?? null,
        update.rateLimitPerMinute !== undefined,
        update.rateLimitPerMinute ?? null,
      ],
    );
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }
}
