/**
 * The keyed patterns of the provenance watermark: periodic, band-limited pseudo-noise sequences at
 * 16 kHz derived from a key's secret (HMAC-SHA256 in counter mode seeds them), one for
 * synchronisation and one per code bit. Each is white inside the band and silent outside it, has
 * unit RMS, and repeats every PERIOD samples, so a detector can fold any excerpt onto one period.
 */
import { createHmac } from 'node:crypto';
import { fft } from '../audio/fft.js';

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

/** Code bits summed per table: the 40 code bits are ten groups of four. */
const GROUP_BITS = 4;

/**
 * Per key, for each group of four code bits and each of the 16 values the group can take, the sum
 * of the four bit patterns signed by the bits: a payload's period is then the sync pattern plus
 * ten table rows (45 k additions instead of 168 k multiply-adds per request). 2.6 MB per key.
 */
const groupTables = new Map<string, Float32Array[]>();

function groupTablesOf(secret: string): Float32Array[] {
  let tables = groupTables.get(secret);
  if (!tables) {
    const p = patternsOf(secret);
    const b = Math.sqrt((1 - SYNC_SHARE) / CODE_BITS);
    tables = [];
    for (let g = 0; g < CODE_BITS / GROUP_BITS; g++) {
      const table = new Float32Array((1 << GROUP_BITS) * PERIOD);
      for (let value = 0; value < 1 << GROUP_BITS; value++) {
        const row = table.subarray(value * PERIOD, (value + 1) * PERIOD);
        for (let k = 0; k < GROUP_BITS; k++) {
          // The group's first bit is the value's most significant.
          const sign = (value >>> (GROUP_BITS - 1 - k)) & 1 ? b : -b;
          const pattern = p.bits[g * GROUP_BITS + k]!;
          for (let i = 0; i < PERIOD; i++) row[i]! += sign * pattern[i]!;
        }
      }
      tables.push(table);
    }
    groupTables.set(secret, tables);
  }
  return tables;
}

/** The one period a payload is embedded as: sync plus each bit's pattern signed by the bit, unit RMS. */
export function markPeriod(secret: string, payload: number): Float64Array {
  const p = patternsOf(secret);
  const tables = groupTablesOf(secret);
  const a = Math.sqrt(SYNC_SHARE);
  const bits = codeBits(payload);
  // The ten rows this payload selects (CODE_BITS / GROUP_BITS), summed with the sync pattern in one pass.
  const rows = tables.map((_table, g) => {
    let value = 0;
    for (let k = 0; k < GROUP_BITS; k++) value = (value << 1) | bits[g * GROUP_BITS + k]!;
    return value * PERIOD;
  });
  const [r0, r1, r2, r3, r4, r5, r6, r7, r8, r9] = rows as [number, number, number, number, number, number, number, number, number, number];
  const [t0, t1, t2, t3, t4, t5, t6, t7, t8, t9] = tables as [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array];
  const sync = p.sync;
  const out = new Float64Array(PERIOD);
  for (let i = 0; i < PERIOD; i++) {
    out[i] = a * sync[i]! + t0[r0 + i]! + t1[r1 + i]! + t2[r2 + i]! + t3[r3 + i]! + t4[r4 + i]! + t5[r5 + i]! + t6[r6 + i]! + t7[r7 + i]! + t8[r8 + i]! + t9[r9 + i]!;
  }
  let power = 0;
  for (let i = 0; i < PERIOD; i++) power += out[i]! * out[i]!;
  const scale = 1 / Math.sqrt(power / PERIOD);
  for (let i = 0; i < PERIOD; i++) out[i]! *= scale;
  return out;
}
