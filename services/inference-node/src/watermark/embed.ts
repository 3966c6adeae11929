/**
 * Embeds the provenance mark into audio as it is produced: the key's periodic pattern for the
 * payload (pattern.ts), read at the audio's own rate by cubic interpolation, scaled by the
 * speech's short-term level so it sits under the speech and vanishes in silence, and added. A
 * chunk comes out as soon as it goes in (no look-ahead), so streams start no later.
 */
import { markPeriod, PATTERN_RATE, PERIOD } from './pattern.js';

/** Mark level relative to the speech level (-36 dB): the clip's SNR stays above 35 dB. */
export const DEFAULT_STRENGTH_DB = -36;
/** Time constant of the level follower, seconds. */
const LEVEL_TIME_SEC = 0.01;

/** Options of an embedder. */
export interface EmbedOptions {
  readonly secret: string;
  /** 32-bit payload. */
  readonly payload: number;
  readonly sampleRate: number;
  /** Mark level relative to the speech, dB. @default DEFAULT_STRENGTH_DB */
  readonly strengthDb?: number;
}

/** Samples between updates of the mark's gain from the level follower (1 ms at 16 kHz). */
const GAIN_BLOCK = 16;
/** The level follower reads every fourth sample (a quarter of the reads; the level is smoothed over 10 ms anyway). */
const LEVEL_STRIDE = 4;
/**
 * The mark's period read at `sampleRate` for as many periods as it takes to come back to the same
 * phase: one period at 16, 24 and 48 kHz, five at 22.05 and 44.1 kHz (28 224 and 56 448 samples);
 * at most 125 periods (32 x the rate: 6 MB at 48 kHz) for an odd rate such as 44 101 Hz.
 */
function patternTable(period: Float64Array, sampleRate: number): Float32Array {
  // PERIOD * rate / PATTERN_RATE output samples per period; the smallest whole number of periods
  // with a whole number of samples.
  const num = PERIOD * Math.round(sampleRate);
  let a = num;
  let b = PATTERN_RATE;
  while (b !== 0) [a, b] = [b, a % b];
  const length = num / a;
  const table = new Float32Array(length);
  // Position n * PATTERN_RATE / rate in the period, kept as a whole part and a remainder in
  // units of 1/rate: exact, with no division per sample.
  const rate = Math.round(sampleRate);
  const perUnit = 1 / rate;
  let i = 0;
  let remainder = 0;
  for (let n = 0; n < length; n++) {
    // Linear interpolation of the periodic pattern: the band ends at 3.6 kHz, where it loses
    // 1.5 dB; its images above 12 kHz are 50 dB below the speech.
    const next = i + 1 === PERIOD ? 0 : i + 1;
    table[n] = period[i]! + remainder * perUnit * (period[next]! - period[i]!);
    remainder += PATTERN_RATE;
    while (remainder >= rate) {
      remainder -= rate;
      if (++i === PERIOD) i = 0;
    }
  }
  return table;
}

/** Stateful embedder of one audio stream. */
export class WatermarkEmbedder {
  /** The pattern at the output rate, read cyclically. */
  private readonly table: Float32Array;
  private readonly strength: number;
  /** Weight of one block's mean square in the level follower. */
  private readonly smoothing: number;
  /** Position in the table. */
  private index = 0;
  /** Mean square level followed so far, and the current block's sum of squares. */
  private level = 0;
  private blockSum = 0;
  /** Samples left in the current gain block, and its gain. */
  private untilGain = 0;
  private gain = 0;

  constructor(options: EmbedOptions) {
    const period = markPeriod(options.secret, options.payload >>> 0);
    this.table = patternTable(period, options.sampleRate);
    this.strength = 10 ** ((options.strengthDb ?? DEFAULT_STRENGTH_DB) / 20);
    this.smoothing = 1 - Math.exp(-GAIN_BLOCK / (LEVEL_TIME_SEC * options.sampleRate));
  }

  /** The chunk with the mark added (a new array; the input is not changed). */
  process(chunk: Float32Array): Float32Array {
    return this.markInPlace(new Float32Array(chunk));
  }

  /** Adds the mark to `chunk` itself and returns it (the node's pipeline: no copy per piece). */
  markInPlace(chunk: Float32Array): Float32Array {
    const table = this.table;
    const length = table.length;
    let index = this.index;
    let level = this.level;
    let blockSum = this.blockSum;
    let untilGain = this.untilGain;
    let gain = this.gain;
    let n = 0;
    while (n < chunk.length) {
      // The gain follows the level in blocks of GAIN_BLOCK samples of the stream (not of the
      // chunk, so any chunking gives the same samples), from the blocks before.
      if (untilGain === 0) {
        level += this.smoothing * ((blockSum * LEVEL_STRIDE) / GAIN_BLOCK - level);
        blockSum = 0;
        gain = this.strength * Math.sqrt(level);
        untilGain = GAIN_BLOCK;
      }
      const end = Math.min(chunk.length, n + untilGain);
      // The level from every LEVEL_STRIDE-th sample of the block (at the block's own offsets).
      const inBlock = GAIN_BLOCK - untilGain;
      for (let k = n + ((LEVEL_STRIDE - (inBlock % LEVEL_STRIDE)) % LEVEL_STRIDE); k < end; k += LEVEL_STRIDE) blockSum += chunk[k]! * chunk[k]!;
      untilGain -= end - n;
      for (; n < end; n++) {
        chunk[n]! += gain * table[index]!;
        if (++index === length) index = 0;
      }
    }
    this.index = index;
    this.level = level;
    this.blockSum = blockSum;
    this.untilGain = untilGain;
    this.gain = gain;
    return chunk;
  }
}

/** Marks a whole clip in one call. */
export function embedWatermark(samples: Float32Array, options: EmbedOptions): Float32Array {
  return new WatermarkEmbedder(options).process(samples);
}
