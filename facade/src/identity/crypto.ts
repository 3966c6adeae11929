/**
 * The few cryptographic primitives identity uses: random tokens, SHA-256, HMAC with domain
 * separation, and constant-time comparisons. Every secret comparison in identity goes through
 * `sameDigest` or `sameSecret` (of `@tts/common`, shared with the gRPC services).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random string of `length` characters from `alphabet` (unbiased; crypto-grade randomness). */
export function randomString(length: number, alphabet: string = BASE62): string {
  // Reject bytes at or above the largest multiple of the alphabet size to avoid modulo bias.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(Math.ceil((length - out.length) * 1.3) + 4)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** SHA-256 digest of a UTF-8 string. */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** SHA-256 of a UTF-8 string as lower-case hex. */
export function sha256Hex(value: string): string {
  return sha256(value).toString('hex');
}

/**
 * HMAC-SHA256 of `parts` under `key`, with a purpose label first. Each part is length-prefixed, so
 * different part lists never produce the same input, and a signature made for one purpose never
 * verifies for another.
 */
export function hmac(key: Buffer, purpose: string, ...parts: string[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const p of [purpose, ...parts]) mac.update(`${Buffer.byteLength(p)}:${p};`);
  return mac.digest();
}

/** Constant-time equality of two digests (false when their lengths differ). */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
