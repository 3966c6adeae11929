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

/** Stateful embedder of one audio stream. */
export class WatermarkEmbedder {
  /** One pattern period with one sample before and two after it, for interpolation without wrapping. */
  private readonly padded: Float64Array;
  private readonly step: number;
  private readonly strength: number;
  private readonly smoothing: number;
  /** Position in the pattern, in pattern samples. */
  private phase = 0;
  /** Mean square level followed so far. */
  private level = 0;
  /** Samples left before the gain is updated, and the current gain. */
  private untilGain = 0;
  private gain = 0;

  constructor(options: EmbedOptions) {
    const period = markPeriod(options.secret, options.payload >>> 0);
    this.padded = new Float64Array(PERIOD + 3);
    this.padded[0] = period[PERIOD - 1]!;
    this.padded.set(period, 1);
    this.padded[PERIOD + 1] = period[0]!;
    this.padded[PERIOD + 2] = period[1]!;
    this.step = PATTERN_RATE / options.sampleRate;
    this.strength = 10 ** ((options.strengthDb ?? DEFAULT_STRENGTH_DB) / 20);
    this.smoothing = 1 - Math.exp(-1 / (LEVEL_TIME_SEC * options.sampleRate));
  }

  /** The chunk with the mark added (a new array; the input is not changed). */
  process(chunk: Float32Array): Float32Array {
    const out = new Float32Array(chunk.length);
    const p = this.padded;
    const step = this.step;
    const smoothing = this.smoothing;
    let phase = this.phase;
    let level = this.level;
    let untilGain = this.untilGain;
    let gain = this.gain;
    for (let n = 0; n < chunk.length; n++) {
      // The gain follows the level in steps of GAIN_BLOCK samples of the stream (not of the chunk,
      // so any chunking gives the same samples).
      if (untilGain === 0) {
        gain = this.strength * Math.sqrt(level);
        untilGain = GAIN_BLOCK;
      }
      untilGain--;
      const x = chunk[n]!;
      level += smoothing * (x * x - level);
      if (step === 1) {
        out[n] = x + gain * p[phase + 1]!;
      } else {
        // Linear interpolation of the periodic pattern at the current phase: the band ends at
        // 3.6 kHz, where it loses 1.5 dB; its images above 12 kHz are 50 dB below the speech.
        const i = phase | 0;
        const t = phase - i;
        out[n] = x + gain * (p[i + 1]! + t * (p[i + 2]! - p[i + 1]!));
      }
      phase += step;
      if (phase >= PERIOD) phase -= PERIOD;
    }
    this.phase = phase;
    this.level = level;
    this.untilGain = untilGain;
    this.gain = gain;
    return out;
  }
}

/** Marks a whole clip in one call. */
export function embedWatermark(samples: Float32Array, options: EmbedOptions): Float32Array {
  return new WatermarkEmbedder(options).process(samples);
}
