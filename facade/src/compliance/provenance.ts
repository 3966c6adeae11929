/**
 * Provenance: the payload that marks each request's audio, detection of the platform's watermark
 * in an uploaded clip (on a node), and, for an administrator, the request a detected payload
 * names. The payload is keyed (watermarkPayloadOf: HMAC-SHA-256 of the platform's own request id
 * under the provenance secret, shared by every replica through the database or
 * TTS_PROVENANCE_SECRET), so nobody can make audio that names another's request by sending its
 * id; every synthesis request's payload is kept beside it in the consent audit.
 */
import { randomBytes } from 'node:crypto';
import type { WatermarkDetection } from '@tts/proto/analysis';
import { ConfigError, payloadHex, watermarkPayloadOf } from '@tts/common';
import type { Database } from '@tts/common/data';
import type { SecretRepository } from '../data/index.js';
import type { AnalysisGateway, UploadSource } from '../references/audio-analysis.js';
import { round } from '../presenters/round.js';

/** Name of the provenance secret in server_secrets. */
export const PROVENANCE_SECRET_NAME = 'provenance_payload_hmac';

/** The payloads of requests, under the platform's provenance secret. */
export class ProvenanceMarks {
  constructor(private readonly secret: Buffer) {}

  /**
   * TTS_PROVENANCE_SECRET (32+ characters) when set, otherwise a secret generated once and shared
   * by every replica through the database. Throws ConfigError for a short one.
   */
  static async open(envValue: string | undefined, secrets: SecretRepository): Promise<ProvenanceMarks> {
    const env = envValue?.trim();
    if (env !== undefined && env !== '') {
      if (env.length < 32) throw new ConfigError('TTS_PROVENANCE_SECRET', 'must be at least 32 characters');
      return new ProvenanceMarks(Buffer.from(env, 'utf8'));
    }
    return new ProvenanceMarks(Buffer.from(await secrets.getOrCreate(PROVENANCE_SECRET_NAME, () => randomBytes(32).toString('base64url')), 'utf8'));
  }

  /** Payloads of the latest requests: each is asked twice (the node's mark, the consent record). */
  private readonly recent = new Map<string, number>();

  /** The payload request `requestId`'s audio is marked with. */
  payloadOf(requestId: string): number {
    let payload = this.recent.get(requestId);
    if (payload === undefined) {
      payload = watermarkPayloadOf(this.secret, requestId);
      if (this.recent.size >= RECENT_PAYLOADS) this.recent.clear();
      this.recent.set(requestId, payload);
    }
    return payload;
  }
}

/** Payloads kept for {@link ProvenanceMarks.payloadOf}: more than the requests in flight at once. */
const RECENT_PAYLOADS = 4096;

/** A request a payload names. */
export interface MarkedRequest {
  readonly requestId: string;
  readonly endpoint: string;
  readonly keyId: string | null;
  readonly createdAt: Date;
}

/**
 * Requests marked with `payload`, newest first (several only by a 1-in-4-billion collision).
 * Records written before payloads were kept have none; for them the payload was the unkeyed
 * SHA-256 of the id, which PostgreSQL computes.
 */
export async function requestsNamedBy(db: Database, payload: number, limit = 5): Promise<MarkedRequest[]> {
  const rows = await db.query<{ request_id: string; endpoint: string; key_id: string | null; created_at: Date }>(
    `SELECT request_id, endpoint, key_id, created_at FROM consent_audit
      WHERE request_id IS NOT NULL
        AND (watermark_payload = $3::bigint
             OR (watermark_payload IS NULL AND substring(sha256(convert_to(request_id, 'UTF8')) from 1 for 4) = decode($1::text, 'hex')))
      ORDER BY created_at DESC LIMIT $2::integer`,
    [payloadHex(payload), limit, payload >>> 0],
  );
  return rows.map((r) => ({ requestId: r.request_id, endpoint: r.endpoint, keyId: r.key_id, createdAt: r.created_at }));
}

/** Detects the mark in a clip on a node. */
export function detectMark(analysis: AnalysisGateway, source: UploadSource, info: { requestId: string; filename: string; contentType: string; sizeBytes: number }, signal: AbortSignal): Promise<WatermarkDetection> {
  return analysis.detectWatermark(source, info, signal);
}

/** The JSON of a detection; `origin` only for administrators (null otherwise). */
export function detectionJson(d: WatermarkDetection, origin: readonly MarkedRequest[] | null): Record<string, unknown> {
  return {
    detected: d.detected,
    confidence: round(d.confidence, 4),
    payload: d.detected && d.hasPayload ? payloadHex(d.payload) : null,
    key_id: d.detected ? d.keyId : null,
    analysed_sec: round(d.analysedSec, 3),
    origin: origin === null ? null : origin.map((o) => ({ request_id: o.requestId, endpoint: o.endpoint, key_id: o.keyId, created_at: o.createdAt.toISOString() })),
  };
}
