/**
 * G.711 (ITU-T, 1972): mu-law and A-law, 8 bits per sample, the telephony formats Twilio and SIP
 * carry (PCMU, PCMA). The companding itself is alawmulaw's (the same tables as the ITU reference).
 */
import alawmulaw from 'alawmulaw';
import { floatToInt16 } from './pcm.js';

/** The two G.711 laws, by format name. */
export type G711Format = 'ulaw' | 'alaw';

/** Float samples in [-1, 1] as G.711 bytes (one per sample, no header). */
export function encodeG711(format: G711Format, samples: Float32Array): Buffer {
  const law = format === 'ulaw' ? alawmulaw.mulaw : alawmulaw.alaw;
  const bytes = law.encode(floatToInt16(samples));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** G.711 bytes as float samples in [-1, 1] (tests: the inverse of `encodeG711` within the law's step). */
export function decodeG711(format: G711Format, bytes: Uint8Array): Float32Array {
  const law = format === 'ulaw' ? alawmulaw.mulaw : alawmulaw.alaw;
  const pcm = law.decode(bytes);
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 32768;
  return out;
}
