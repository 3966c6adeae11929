/**
 * The keyed patterns of the provenance watermark: periodic, band-limited pseudo-noise sequences at
 * 16 kHz derived from a key's secret (HMAC-SHA256 in counter mode seeds them), one for
 * synchronisation and one per code bit. Each is white inside the band and silent outside it, has
 * unit RMS, and repeats every PERIOD samples, so a detector can fold any excerpt onto one period.
 */
import { createHmac } from 'node:crypto';
import { fft } from './fft.js';

/** Rate the patterns are defined at (detection resamples to it). */
export const PATTERN_RATE = 16_000;
/** Samples of one period at PATTERN_RATE (0.256 s). */
export const PERIOD = 4096;
/** Band the mark occupies, Hz: kept by 16 kHz resampling, MP3 and Opus at speech bitrates. */
export const BAND_HZ = Object.freeze({ low: 400, high: 3600 });
/** Payload bits and check bits carried by every period. */
export const PAYLOAD_BITS = 32;
export const CHECK_BITS = 8;
export const CODE_BITS = PAYLOAD_BITS + CHECK_BITS;

/** The patterns of one key. */
export interface KeyPatterns {
  readonly sync: Float64Array;
  readonly bits: readonly Float64Array[];
}

/** Deterministic bytes from a secret and a label. */
function keyStream(secret: string, label: string, bytes: number): Buffer {
  const out: Buffer[] = [];
  for (let counter = 0; out.length * 32 < bytes; counter++) out.push(createHmac('sha256', secret).update(`${label}:${counter}`).digest());
  return Buffer.concat(out).subarray(0, bytes);
}

/** A unit-RMS periodic sequence with random phases in the band. */
function bandNoise(secret: string, label: string): Float64Array {
  const re = new Float64Array(PERIOD);
  const im = new Float64Array(PERIOD);
  const lo = Math.ceil((BAND_HZ.low * PERIOD) / PATTERN_RATE);
  const hi = Math.floor((BAND_HZ.high * PERIOD) / PATTERN_RATE);
  const random = keyStream(secret, label, (hi - lo + 1) * 2);
  for (let k = lo; k <= hi; k++) {
    const phase = (random.readUInt16LE((k - lo) * 2) / 65536) * 2 * Math.PI;
    re[k] = Math.cos(phase);
    im[k] = Math.sin(phase);
    re[PERIOD - k] = Math.cos(phase);
    im[PERIOD - k] = -Math.sin(phase);
  }
  fft(re, im, true);
  let power = 0;
  for (const v of re) power += v * v;
  const scale = 1 / Math.sqrt(power / PERIOD);
  for (let i = 0; i < PERIOD; i++) re[i]! *= scale;
  return re;
}

const cache = new Map<string, KeyPatterns>();

/** The patterns of a key (computed once per secret). */
export function patternsOf(secret: string): KeyPatterns {
  let p = cache.get(secret);
  if (!p) {
    p = { sync: bandNoise(secret, 'sync'), bits: Array.from({ length: CODE_BITS }, (_, k) => bandNoise(secret, `bit-${k}`)) };
    cache.set(secret, p);
  }
  return p;
}

/** CRC-8 (polynomial 0x07) of the payload's four bytes, big-endian. */
export function crc8(payload: number): number {
  let crc = 0;
  for (let shift = 24; shift >= 0; shift -= 8) {
    crc ^= (payload >>> shift) & 0xff;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** The code bits of a payload: 32 payload bits (most significant first), then its CRC-8. */
export function codeBits(payload: number): number[] {
  const bits: number[] = [];
  for (let i = PAYLOAD_BITS - 1; i >= 0; i--) bits.push((payload >>> i) & 1);
  const crc = crc8(payload >>> 0);
  for (let i = CHECK_BITS - 1; i >= 0; i--) bits.push((crc >>> i) & 1);
  return bits;
}

/** Share of the mark's power spent on synchronisation; the rest is split evenly over the code bits. */
export const SYNC_SHARE = 0.4;

/** The one period a payload is embedded as: sync plus each bit's pattern signed by the bit, unit RMS. */
export function markPeriod(secret: string, payload: number): Float64Array {
  const p = patternsOf(secret);
  const a = Math.sqrt(SYNC_SHARE);
  const b = Math.sqrt((1 - SYNC_SHARE) / CODE_BITS);
  const bits = codeBits(payload);
  const out = new Float64Array(PERIOD);
  for (let i = 0; i < PERIOD; i++) out[i] = a * p.sync[i]!;
  bits.forEach((bit, k) => {
    const sign = bit === 1 ? b : -b;
    const pattern = p.bits[k]!;
    for (let i = 0; i < PERIOD; i++) out[i]! += sign * pattern[i]!;
  });
  let power = 0;
  for (const v of out) power += v * v;
  const scale = 1 / Math.sqrt(power / PERIOD);
  for (let i = 0; i < PERIOD; i++) out[i]! *= scale;
  return out;
}
