/**
 * Provenance: detection of the platform's watermark in an uploaded clip (on a node), and, for an
 * administrator, the requests whose id the detected payload names. Every synthesis request is in
 * the consent audit with its request id; the payload is the first four bytes of the id's SHA-256
 * (watermarkPayloadOf), which PostgreSQL computes alike.
 */
import type { WatermarkDetection } from '@tts/proto/analysis';
import { payloadHex } from '@tts/common';
import type { Database } from '@tts/common/data';
import type { AnalysisGateway, UploadSource } from './audio-analysis.js';
import { round } from './round.js';

/** A request a payload names. */
export interface MarkedRequest {
  readonly requestId: string;
  readonly endpoint: string;
  readonly keyId: string | null;
  readonly createdAt: Date;
}

/** Requests whose id hashes to `payload`, newest first (several only by a 1-in-4-billion collision). */
export async function requestsNamedBy(db: Database, payload: number, limit = 5): Promise<MarkedRequest[]> {
  const rows = await db.query<{ request_id: string; endpoint: string; key_id: string | null; created_at: Date }>(
    `SELECT request_id, endpoint, key_id, created_at FROM consent_audit
      WHERE request_id IS NOT NULL AND substring(sha256(convert_to(request_id, 'UTF8')) from 1 for 4) = decode($1::text, 'hex')
      ORDER BY created_at DESC LIMIT $2::integer`,
    [payloadHex(payload), limit],
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
