/**
 * Band-limited sample-rate conversion: a Kaiser-windowed sinc low-pass evaluated in polyphase form.
 * Flat to 88 % of the lower Nyquist frequency, about 90 dB stop-band attenuation from the lower
 * Nyquist frequency on, zero phase (no delay). Any integer ratio; one-shot and streaming give the same samples.
 */
import type { PcmAudio } from './pcm.js';

/** Stop-band attenuation the Kaiser window is designed for (dB). */
const ATTENUATION_DB = 90;
/** Pass-band edge as a fraction of the lower Nyquist frequency; the stop band starts at that Nyquist frequency. */
const PASSBAND = 0.88;
/** A polyphase table is precomputed when it holds at most this many weights; else the kernel is interpolated. */
const MAX_TABLE_WEIGHTS = 1 << 20;
/** Kernel points per input sample for the interpolated kernel (linear interpolation error below -100 dB). */
const OVERSAMPLE = 512;
/**
 * Highest rate converted from or to, Hz: a filter's length grows with the ratio of the rates, so a
 * rate no audio has (a crafted header's 80 MHz) would cost a filter of hundreds of megabytes.
 */
export const MAX_RESAMPLE_RATE = 768_000;

/** A stateful streaming resampler. */
export interface Resampler {
  /** Converts the next chunk; the output lags the input by the filter's half-length until `flush`. */
  process(chunk: Float32Array): Float32Array;
  /** Returns the remaining output for the input so far, then starts over for a new stream. */
  flush(): Float32Array;
}

/** Filter design for one rate pair: output sample n sits at input position n·M/L. */
interface Design {
  /** Output rate / gcd (number of phases). */
  readonly up: number;
  /** Input rate / gcd. */
  readonly down: number;
  /** Half length in input samples; each output reads 2·half inputs. */
  readonly half: number;
  /** Per-phase weights, `up` rows of 2·half, each summing to 1; undefined when too large. */
  readonly table: Float32Array | undefined;
  /** The kernel sampled OVERSAMPLE times per input sample over [-half, half] (used without a table). */
  readonly fine: Float32Array | undefined;
}

const designs = new Map<string, Design>();

/**
 * Most weights the design cache holds, all designs together (least recently used ones leave first;
 * a larger design is used once and not kept). The usual pairs take under 50,000 each.
 */
export const DESIGN_CACHE_MAX_WEIGHTS = 1 << 21;
let cachedWeights = 0;

/** Weights held by the cached designs (tests). */
export function cachedDesignWeights(): number {
  return cachedWeights;
}

const weightsOf = (d: Design): number => (d.table?.length ?? 0) + (d.fine?.length ?? 0);

/** Resamples a whole clip with the band-limited resampler; returns `audio` itself when the rate already matches. */
export function resample(audio: PcmAudio, targetRate: number): PcmAudio {
  assertRate(targetRate, 'targetRate');
  if (audio.sampleRate === targetRate) return audio;
  const resampler = createResampler(audio.sampleRate, targetRate);
  const head = resampler.process(audio.samples);
  const tail = resampler.flush();
  const samples = new Float32Array(head.length + tail.length);
  samples.set(head);
  samples.set(tail, head.length);
  return { samples, sampleRate: targetRate };
}

/** The clip's samples at `targetRate`: its own samples when it already has that rate (analyses at 16 kHz). */
export function samplesAt(audio: PcmAudio, targetRate: number): Float32Array {
  return resample(audio, targetRate).samples;
}

/**
 * Stateful streaming resampler: chunks in, chunks out; the concatenated output equals `resample` of the
 * concatenated input sample for sample. Total output length is ceil(inputLength · toRate / fromRate).
 */
export function createResampler(fromRate: number, toRate: number): Resampler {
  assertRate(fromRate, 'fromRate');
  assertRate(toRate, 'toRate');
  if (fromRate === toRate) return { process: (chunk) => chunk.slice(), flush: () => new Float32Array(0) };
  return new PolyphaseResampler(designFor(fromRate, toRate));
}

class PolyphaseResampler implements Resampler {
  private buf = new Float32Array(0);
  /** Absolute input index of buf[0] (negative indices are the zeros before the stream). */
  private bufStart = 0;
  /** Real input samples seen. */
  private inCount = 0;
  /** Next output index. */
  private nOut = 0;
  private readonly scratch: Float32Array;

  constructor(private readonly d: Design) {
    this.scratch = new Float32Array(2 * d.half);
    this.reset();
  }

  process(chunk: Float32Array): Float32Array {
    this.append(chunk);
    this.inCount += chunk.length;
    const { up, down, half } = this.d;
    const reach = (this.inCount - half) * up; // output n is ready when n·down < reach
    const end = reach > 0 ? Math.ceil(reach / down) : 0;
    const out = this.run(end);
    this.dropConsumed();
    return out;
  }

  flush(): Float32Array {
    const { up, down, half } = this.d;
    this.append(new Float32Array(half)); // zeros after the end, not counted as input
    const out = this.run(Math.ceil((this.inCount * up) / down));
    this.reset();
    return out;
  }

  private reset(): void {
    const pre = this.d.half - 1;
    this.buf = new Float32Array(pre);
    this.bufStart = -pre;
    this.inCount = 0;
    this.nOut = 0;
  }

  private append(chunk: Float32Array): void {
    const next = new Float32Array(this.buf.length + chunk.length);
    next.set(this.buf);
    next.set(chunk, this.buf.length);
    this.buf = next;
  }

  /** Drops input no later output reads. */
  private dropConsumed(): void {
    const { up, down, half } = this.d;
    const firstNeeded = Math.floor((this.nOut * down) / up) - half + 1;
    const drop = firstNeeded - this.bufStart;
    if (drop > 0) {
      this.buf = this.buf.slice(drop);
      this.bufStart = firstNeeded;
    }
  }

  /** Computes outputs nOut..end-1 from the buffer. */
  private run(end: number): Float32Array {
    const count = Math.max(0, end - this.nOut);
    const out = new Float32Array(count);
    const { up, down, half, table, fine } = this.d;
    const taps = 2 * half;
    const buf = this.buf;
    for (let j = 0; j < count; j++) {
      const num = (this.nOut + j) * down;
      const i0 = Math.floor(num / up);
      const phase = num - i0 * up;
      const s = i0 - half + 1 - this.bufStart;
      if (table !== undefined) {
        out[j] = dot(buf, s, table, phase * taps, taps);
      } else if (fine !== undefined) {
        const w = this.scratch;
        // Tap k sits at x = (k - half + 1) - phase/up; its kernel position advances OVERSAMPLE per tap.
        const pos = (1 - phase / up) * OVERSAMPLE;
        const i = Math.floor(pos);
        const t = pos - i;
        let sum = 0;
        for (let k = 0, f = i; k < taps; k++, f += OVERSAMPLE) {
          const v = fine[f]! + (fine[f + 1]! - fine[f]!) * t;
          w[k] = v;
          sum += v;
        }
        out[j] = dot(buf, s, w, 0, taps) / sum;
      }
    }
    this.nOut += count;
    return out;
  }
}

/** Sum of x[xi + k] · w[wi + k] for k < n (n a multiple of 4; four accumulators let the JIT pipeline it). */
function dot(x: Float32Array, xi: number, w: Float32Array, wi: number, n: number): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  for (const end = wi + n; wi < end; wi += 4, xi += 4) {
    a0 += x[xi]! * w[wi]!;
    a1 += x[xi + 1]! * w[wi + 1]!;
    a2 += x[xi + 2]! * w[wi + 2]!;
    a3 += x[xi + 3]! * w[wi + 3]!;
  }
  return a0 + a1 + (a2 + a3);
}

function designFor(fromRate: number, toRate: number): Design {
  const key = `${fromRate}:${toRate}`;
  const cached = designs.get(key);
  if (cached !== undefined) {
    // Most recently used last: eviction takes from the front.
    designs.delete(key);
    designs.set(key, cached);
    return cached;
  }
  const g = gcd(fromRate, toRate);
  const up = toRate / g;
  const down = fromRate / g;
  const ratio = Math.min(1, up / down); // lower Nyquist relative to the input's
  const transition = 0.5 * (1 - PASSBAND) * ratio; // cycles per input sample
  const cutoff = 0.5 * ratio - transition / 2;
  const beta = 0.1102 * (ATTENUATION_DB - 8.7);
  const length = Math.ceil((ATTENUATION_DB - 7.95) / (2.285 * 2 * Math.PI * transition)) + 1;
  const half = 2 * Math.ceil(length / 4); // even, so the 2·half taps are a multiple of 4
  const taps = 2 * half;
  const kernel = (x: number): number => {
    const r = x / half;
    if (r <= -1 || r >= 1) return 0;
    const u = 2 * cutoff * x;
    const sinc = u === 0 ? 1 : Math.sin(Math.PI * u) / (Math.PI * u);
    return 2 * cutoff * sinc * besselI0(beta * Math.sqrt(1 - r * r));
  };
  let table: Float32Array | undefined;
  let fine: Float32Array | undefined;
  if (up * taps <= MAX_TABLE_WEIGHTS) {
    table = new Float32Array(up * taps);
    const row = new Float64Array(taps);
    for (let p = 0; p < up; p++) {
      let sum = 0;
      for (let k = 0; k < taps; k++) {
        row[k] = kernel(k - half + 1 - p / up);
        sum += row[k]!;
      }
      for (let k = 0; k < taps; k++) table[p * taps + k] = row[k]! / sum;
    }
  } else {
    fine = new Float32Array(taps * OVERSAMPLE + 2);
    for (let i = 0; i < fine.length; i++) fine[i] = kernel(i / OVERSAMPLE - half);
  }
  const design: Design = { up, down, half, table, fine };
  const weights = weightsOf(design);
  if (weights > DESIGN_CACHE_MAX_WEIGHTS) return design;
  for (const [oldKey, old] of designs) {
    if (cachedWeights + weights <= DESIGN_CACHE_MAX_WEIGHTS) break;
    designs.delete(oldKey);
    cachedWeights -= weightsOf(old);
  }
  designs.set(key, design);
  cachedWeights += weights;
  return design;
}

/** Modified Bessel function of the first kind, order 0 (power series). */
function besselI0(x: number): number {
  const q = (x * x) / 4;
  let term = 1;
  let sum = 1;
  for (let k = 1; term > sum * 1e-12; k++) {
    term *= q / (k * k);
    sum += term;
  }
  return sum;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function assertRate(rate: number, name: string): void {
  if (!Number.isInteger(rate) || rate <= 0 || rate > MAX_RESAMPLE_RATE) throw new RangeError(`${name} must be an integer number of Hz from 1 to ${MAX_RESAMPLE_RATE}, got ${String(rate)}`);
}
