/**
 * Detects the provenance mark: the audio (resampled to 16 kHz) is whitened frame by frame (each
 * STFT bin divided by the local spectral magnitude, so the speech's harmonics and formants stop
 * masking the flat mark), folded onto one pattern period, and circularly correlated with each
 * key's sync pattern; the peak's height over the correlation's spread is the detection score,
 * its position the alignment at which the code bits are read and checked against their CRC-8.
 * When the check fails, the least reliable bits (smallest correlation) are flipped, one at a time
 * and the two weakest together, and the check is tried again (a short Chase decoding): a whole
 * clip whose payload lost one weak bit to a codec still names its request, at the price of a few
 * more chances of a CRC collision (bench/README.md, `watermark`, counts wrong payloads).
 */
import { fft } from '../audio/fft.js';
import { BAND_HZ, CHECK_BITS, CODE_BITS, crc8, PATTERN_RATE, PAYLOAD_BITS, PERIOD, patternsOf } from './pattern.js';

/** Score above which the mark is present (no unmarked clip of the benchmark came near it). */
export const DETECTION_THRESHOLD = 6;

const FRAME = 512;
const HOP = FRAME / 2;
/** Bins each side averaged into the magnitude a bin is divided by. */
const SMOOTH_BINS = 2;

/** What detection found with one key. */
export interface WatermarkMatch {
  readonly detected: boolean;
  /** Peak-to-spread ratio of the sync correlation. */
  readonly score: number;
  /** 0..1 */
  readonly confidence: number;
  /** Decoded payload when its check bits agree, else null. */
  readonly payload: number | null;
  readonly keyId: number | null;
}

/** A key to try. */
export interface DetectionKey {
  readonly id: number;
  readonly secret: string;
}

/** Frame-wise spectral whitening (Hann analysis, overlap-add), band-limited to the mark's band. */
export function whiten(x: Float32Array): Float64Array {
  const out = new Float64Array(x.length + FRAME);
  const window = new Float64Array(FRAME);
  for (let i = 0; i < FRAME; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FRAME);
  const re = new Float64Array(FRAME);
  const im = new Float64Array(FRAME);
  const mag = new Float64Array(FRAME / 2 + 1);
  const lo = Math.floor((BAND_HZ.low * FRAME) / PATTERN_RATE);
  const hi = Math.ceil((BAND_HZ.high * FRAME) / PATTERN_RATE);
  // Frames of background noise only carry no mark (it follows the speech level): each frame is
  // weighted by the share of its energy above the noise floor (the 10th percentile of frames).
  const energies: number[] = [];
  for (let start = -HOP; start < x.length; start += HOP) {
    let e = 0;
    for (let i = Math.max(0, start); i < Math.min(x.length, start + FRAME); i++) e += x[i]! * x[i]!;
    energies.push(e);
  }
  const audible = energies.filter((e) => e > 0).sort((a, b) => a - b);
  const floor = audible.length === 0 ? 0 : audible[Math.floor(audible.length * 0.1)]!;
  let frameIndex = 0;
  for (let start = -HOP; start < x.length; start += HOP) {
    const energy = energies[frameIndex++]!;
    const weight = energy > 0 ? Math.max(0, 1 - floor / energy) : 0;
    for (let i = 0; i < FRAME; i++) {
      const at = start + i;
      re[i] = at >= 0 && at < x.length ? x[at]! * window[i]! : 0;
      im[i] = 0;
    }
    fft(re, im);
    for (let k = 0; k <= FRAME / 2; k++) mag[k] = Math.hypot(re[k]!, im[k]!);
    for (let k = 0; k <= FRAME / 2; k++) {
      if (k < lo || k > hi) {
        re[k] = 0;
        im[k] = 0;
      } else {
        let sum = 0;
        let count = 0;
        for (let j = Math.max(0, k - SMOOTH_BINS); j <= Math.min(FRAME / 2, k + SMOOTH_BINS); j++) {
          sum += mag[j]!;
          count++;
        }
        const norm = sum / count + 1e-9;
        re[k] = (weight * re[k]!) / norm;
        im[k] = (weight * im[k]!) / norm;
      }
      if (k > 0 && k < FRAME / 2) {
        re[FRAME - k] = re[k]!;
        im[FRAME - k] = -im[k]!;
      }
    }
    fft(re, im, true);
    for (let i = 0; i < FRAME; i++) {
      const at = start + i + HOP;
      if (at >= 0 && at < out.length) out[at]! += (re[i]! / FRAME) * window[i]!;
    }
  }
  return out.subarray(HOP, HOP + x.length);
}

/** The signal folded onto one period (sum of its periods). */
function fold(x: Float64Array): Float64Array {
  const folded = new Float64Array(PERIOD);
  for (let i = 0; i < x.length; i++) folded[i % PERIOD]! += x[i]!;
  return folded;
}

/** Circular cross-correlation of `a` with `b` (c[tau] = sum a[m] b[m - tau]). */
function circularCorrelation(a: Float64Array, b: Float64Array): Float64Array {
  const ar = Float64Array.from(a);
  const ai = new Float64Array(PERIOD);
  const br = Float64Array.from(b);
  const bi = new Float64Array(PERIOD);
  fft(ar, ai);
  fft(br, bi);
  for (let k = 0; k < PERIOD; k++) {
    const r = ar[k]! * br[k]! + ai[k]! * bi[k]!;
    const i = ai[k]! * br[k]! - ar[k]! * bi[k]!;
    ar[k] = r;
    ai[k] = i;
  }
  fft(ar, ai, true);
  for (let k = 0; k < PERIOD; k++) ar[k]! /= PERIOD;
  return ar;
}

function dotShifted(folded: Float64Array, pattern: Float64Array, tau: number): number {
  let sum = 0;
  for (let m = 0; m < PERIOD; m++) sum += folded[m]! * pattern[(m - tau + PERIOD) % PERIOD]!;
  return sum;
}

const confidenceOf = (score: number): number => 1 / (1 + Math.exp(-1.5 * (score - DETECTION_THRESHOLD)));

/**
 * Looks for the mark of any of `keys` in mono audio at 16 kHz. The first key whose score passes
 * the threshold wins; otherwise the best score is reported as not detected.
 */
export function detectWatermark(pcm16k: Float32Array, keys: readonly DetectionKey[]): WatermarkMatch {
  const folded = fold(whiten(pcm16k));
  let best: WatermarkMatch = { detected: false, score: 0, confidence: 0, payload: null, keyId: null };
  for (const key of keys) {
    const patterns = patternsOf(key.secret);
    const c = circularCorrelation(folded, patterns.sync);
    let peak = 0;
    let tau = 0;
    for (let k = 0; k < PERIOD; k++) {
      if (c[k]! > peak) {
        peak = c[k]!;
        tau = k;
      }
    }
    let power = 0;
    for (let k = 0; k < PERIOD; k++) if (Math.abs(k - tau) > 2) power += c[k]! * c[k]!;
    const spread = Math.sqrt(power / (PERIOD - 5)) || 1e-12;
    const score = peak / spread;
    if (score < DETECTION_THRESHOLD) {
      if (score > best.score) best = { detected: false, score, confidence: confidenceOf(score), payload: null, keyId: null };
      continue;
    }
    const soft = patterns.bits.map((pattern) => dotShifted(folded, pattern, tau));
    return { detected: true, score, confidence: confidenceOf(score), payload: decodePayload(soft), keyId: key.id };
  }
  return best;
}

/** The payload of hard bits when their CRC-8 agrees, else null. */
function checkedPayload(bits: readonly number[]): number | null {
  let payload = 0;
  for (let i = 0; i < PAYLOAD_BITS; i++) payload = (payload << 1) | bits[i]!;
  payload >>>= 0;
  let check = 0;
  for (let i = PAYLOAD_BITS; i < CODE_BITS; i++) check = (check << 1) | bits[i]!;
  return check === crc8(payload) && CHECK_BITS === CODE_BITS - PAYLOAD_BITS ? payload : null;
}

/** How many of the least reliable bits the Chase decoding flips (singly, and the weakest two together). */
export const CHASE_BITS = 3;

/**
 * The payload of the code bits' soft values (correlations; the sign is the bit): the hard decision
 * if it checks, else the first of the flips of the least reliable bits that checks, else null.
 */
export function decodePayload(soft: readonly number[]): number | null {
  const bits: number[] = soft.map((v) => (v > 0 ? 1 : 0));
  const direct = checkedPayload(bits);
  if (direct !== null) return direct;
  const weakest = soft.map((v, i) => [Math.abs(v), i] as const).sort((a, b) => a[0] - b[0]).slice(0, CHASE_BITS).map(([, i]) => i);
  const trials = [...weakest.map((i) => [i]), weakest.slice(0, 2)];
  for (const flips of trials) {
    const trial = [...bits];
    for (const i of flips) trial[i] = 1 - trial[i]!;
    const payload = checkedPayload(trial);
    if (payload !== null) return payload;
  }
  return null;
}
