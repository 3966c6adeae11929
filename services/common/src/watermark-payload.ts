/**
 * The 32-bit payload of the provenance watermark that names a request: the first four bytes of
 * HMAC-SHA-256 of its request id under a server secret (big-endian). Keyed, so knowing or choosing
 * a request id gives nobody its payload. The facade marks its requests' audio with it (its secret
 * shared by every replica) and records it beside the request in the consent audit, where detection
 * looks a found payload up.
 */
import { createHmac } from 'node:crypto';

/** The payload of request `requestId` under `secret`; never 0 (0 in a SpeechSpec means "none given"). */
export function watermarkPayloadOf(secret: string | Uint8Array, requestId: string): number {
  const payload = createHmac('sha256', secret).update(requestId, 'utf8').digest().readUInt32BE(0);
  return payload === 0 ? 1 : payload;
}

/** A payload as 8 lower-case hex digits. */
export function payloadHex(payload: number): string {
  return (payload >>> 0).toString(16).padStart(8, '0');
}
