/**
 * The 32-bit payload of the provenance watermark that names a request: the first four bytes of
 * SHA-256 of its request id (big-endian). The node embeds it, the facade looks a detected payload
 * up among the requests it recorded (PostgreSQL computes the same digest).
 */
import { createHash } from 'node:crypto';

/** The payload of request `requestId`. */
export function watermarkPayloadOf(requestId: string): number {
  return createHash('sha256').update(requestId, 'utf8').digest().readUInt32BE(0);
}

/** A payload as 8 lower-case hex digits. */
export function payloadHex(payload: number): string {
  return (payload >>> 0).toString(16).padStart(8, '0');
}
