/**
 * Stored reference clips (table `reference_audio`): owner-scoped, expiring. Every read filters by
 * owner and by `expires_at`, so another caller's or an expired clip is simply not found. The
 * audio crosses the driver as base64 text (both drivers take text parameters alike).
 */
import type { Database } from '@tts/common/data';

/** A stored clip without its bytes. */
export interface ReferenceRecord {
  readonly referenceId: string;
  readonly ownerKeyId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly filename: string;
  readonly suffix: string;
  readonly contentType: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly durationSec: number;
  readonly sampleRate: number;
  readonly channels: number;
  readonly passed: boolean;
  /** The node's analysis as the validate operation answered it (JSON). */
  readonly analysis: Record<string, unknown>;
}

/** A clip to store. */
export interface NewReference extends Omit<ReferenceRecord, 'createdAt'> {
  readonly audio: Buffer;
}

interface ReferenceRow {
  reference_id: string;
  owner_key_id: string;
  created_at: Date;
  expires_at: Date;
  filename: string;
  suffix: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  duration_sec: number;
  sample_rate: number;
  channels: number;
  passed: boolean;
  analysis: unknown;
}

const COLUMNS = 'reference_id, owner_key_id, created_at, expires_at, filename, suffix, content_type, size_bytes, sha256, duration_sec, sample_rate, channels, passed, analysis';

function recordOf(row: ReferenceRow): ReferenceRecord {
  const analysis = typeof row.analysis === 'string' ? (JSON.parse(row.analysis) as unknown) : row.analysis;
  return {
    referenceId: row.reference_id,
    ownerKeyId: row.owner_key_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    filename: row.filename,
    suffix: row.suffix,
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    sha256: row.sha256,
    durationSec: Number(row.duration_sec),
    sampleRate: Number(row.sample_rate),
    channels: Number(row.channels),
    passed: row.passed,
    analysis: (analysis ?? {}) as Record<string, unknown>,
  };
}

/** Reads and writes `reference_audio`. */
export class ReferenceRepository {
  constructor(private readonly db: Database) {}

  async insert(ref: NewReference): Promise<ReferenceRecord> {
    const rows = await this.db.query<ReferenceRow>(
      `INSERT INTO reference_audio (reference_id, owner_key_id, expires_at, filename, suffix, content_type, size_bytes, sha256, duration_sec, sample_rate, channels, passed, analysis, audio)
       VALUES ($1::text, $2::text, $3::timestamptz, $4::text, $5::text, $6::text, $7::integer, $8::text, $9::double precision, $10::integer, $11::integer, $12::boolean, $13::jsonb, decode($14::text, 'base64'))
       RETURNING ${COLUMNS}`,
      [ref.referenceId, ref.ownerKeyId, ref.expiresAt, ref.filename, ref.suffix, ref.contentType, ref.sizeBytes, ref.sha256, ref.durationSec, ref.sampleRate, ref.channels, ref.passed, JSON.stringify(ref.analysis), ref.audio.toString('base64')],
    );
    return recordOf(rows[0]!);
  }

  /** The owner's live clip, or undefined. */
  async get(ownerKeyId: string, referenceId: string, now = new Date()): Promise<ReferenceRecord | undefined> {
    const rows = await this.db.query<ReferenceRow>(
      `SELECT ${COLUMNS} FROM reference_audio WHERE reference_id = $1::text AND owner_key_id = $2::text AND expires_at > $3::timestamptz`,
      [referenceId, ownerKeyId, now],
    );
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  /** The owner's live clip with its bytes, or undefined. */
  async getAudio(ownerKeyId: string, referenceId: string, now = new Date()): Promise<{ record: ReferenceRecord; audio: Buffer } | undefined> {
    const rows = await this.db.query<ReferenceRow & { audio_b64: string }>(
      `SELECT ${COLUMNS}, encode(audio, 'base64') AS audio_b64 FROM reference_audio WHERE reference_id = $1::text AND owner_key_id = $2::text AND expires_at > $3::timestamptz`,
      [referenceId, ownerKeyId, now],
    );
    const row = rows[0];
    return row === undefined ? undefined : { record: recordOf(row), audio: Buffer.from(row.audio_b64, 'base64') };
  }

  /** The owner's live clips, newest first. */
  async list(ownerKeyId: string, limit: number, now = new Date()): Promise<ReferenceRecord[]> {
    const rows = await this.db.query<ReferenceRow>(
      `SELECT ${COLUMNS} FROM reference_audio WHERE owner_key_id = $1::text AND expires_at > $2::timestamptz ORDER BY created_at DESC, reference_id LIMIT $3::integer`,
      [ownerKeyId, now, limit],
    );
    return rows.map(recordOf);
  }

  /** Deletes the owner's clip; true when one was deleted. */
  async delete(ownerKeyId: string, referenceId: string): Promise<boolean> {
    const rows = await this.db.query<{ reference_id: string }>(
      'DELETE FROM reference_audio WHERE reference_id = $1::text AND owner_key_id = $2::text RETURNING reference_id',
      [referenceId, ownerKeyId],
    );
    return rows.length > 0;
  }

  /** Deletes every clip of the owner (an account deleted); returns how many. */
  async deleteOwner(ownerKeyId: string): Promise<number> {
    const rows = await this.db.query<{ reference_id: string }>('DELETE FROM reference_audio WHERE owner_key_id = $1::text RETURNING reference_id', [ownerKeyId]);
    return rows.length;
  }

  /** Deletes every clip past its expiry; returns how many. */
  async deleteExpired(now = new Date()): Promise<number> {
    const rows = await this.db.query<{ reference_id: string }>('DELETE FROM reference_audio WHERE expires_at <= $1::timestamptz RETURNING reference_id', [now]);
    return rows.length;
  }
}
