/**
 * Measurements of a speech clip at 16 kHz: levels, clipping, a noise-floor SNR estimate, leading
 * and trailing silence, and pitch (YIN: de Cheveigné and Kawahara, 2002) over the voiced frames.
 * Pure functions over samples; the caller decides which part of a long clip to measure.
 */
import type { SpeechSegment } from '../vad/index.js';

/** Level and silence facts of a clip. */
export interface LevelFacts {
  /** Highest absolute sample, dBFS (-Infinity for digital silence). */
  readonly peakDbfs: number;
  /** RMS over the speech segments, dBFS (-Infinity without speech). */
  readonly speechLevelDbfs: number;
  /** Share of samples at or above 0.999 of full scale. */
  readonly clippedRatio: number;
  /** Speech level over the noise floor, dB; capped at 100 (digital silence between words). */
  readonly snrDb: number;
  readonly leadingSilenceSec: number;
  readonly trailingSilenceSec: number;
  /** Share of the clip inside speech segments. */
  readonly speechRatio: number;
}

/** A pitch summary of the voiced frames. */
export interface PitchFacts {
  readonly medianHz: number;
  readonly p10Hz: number;
  readonly p90Hz: number;
  readonly voicedFrames: number;
}

const FRAME_SEC = 0.02;
const CLIP_LEVEL = 0.999;
const MAX_SNR_DB = 100;

const dbfs = (amplitude: number): number => (amplitude > 0 ? 20 * Math.log10(amplitude) : -Infinity);

/**
 * Levels of `samples` (mono, `sampleRate`) given the VAD's speech segments. `clipSource` is the
 * mix at its native rate when available: resampling smooths the flat tops clipping leaves.
 */
export function measureLevels(samples: Float32Array, sampleRate: number, segments: readonly SpeechSegment[], clipSource: Float32Array = samples): LevelFacts {
  let peak = 0;
  for (const v of samples) peak = Math.max(peak, Math.abs(v));
  let clipped = 0;
  for (const v of clipSource) if (Math.abs(v) >= CLIP_LEVEL) clipped++;
  const frame = Math.max(1, Math.round(FRAME_SEC * sampleRate));
  const frames = Math.floor(samples.length / frame);
  const inSpeech = new Uint8Array(frames);
  for (const s of segments) {
    for (let f = Math.floor((s.startSec * sampleRate) / frame); f < Math.min(frames, Math.ceil((s.endSec * sampleRate) / frame)); f++) inSpeech[f] = 1;
  }
  let speechPower = 0;
  let speechCount = 0;
  const otherPowers: number[] = [];
  const allPowers: number[] = [];
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += samples[i]! * samples[i]!;
    const power = sum / frame;
    allPowers.push(power);
    if (inSpeech[f] === 1) {
      speechPower += power;
      speechCount++;
    } else otherPowers.push(power);
  }
  const meanSpeech = speechCount > 0 ? speechPower / speechCount : 0;
  // The noise floor: the median of the non-speech frames, else the 10th percentile of all frames
  // (a clip that is speech from edge to edge still has pauses between words).
  const floor = otherPowers.length >= 5 ? percentile(otherPowers, 0.5) : percentile(allPowers, 0.1);
  const snrDb = meanSpeech <= 0 ? 0 : floor <= 0 ? MAX_SNR_DB : Math.min(MAX_SNR_DB, 10 * Math.log10(meanSpeech / floor));
  const duration = samples.length / sampleRate;
  const first = segments[0];
  const last = segments[segments.length - 1];
  const speechSec = segments.reduce((sum, s) => sum + (s.endSec - s.startSec), 0);
  return {
    peakDbfs: dbfs(peak),
    speechLevelDbfs: meanSpeech > 0 ? 10 * Math.log10(meanSpeech) : -Infinity,
    clippedRatio: clipSource.length > 0 ? clipped / clipSource.length : 0,
    snrDb,
    leadingSilenceSec: first === undefined ? duration : first.startSec,
    trailingSilenceSec: last === undefined ? duration : Math.max(0, duration - last.endSec),
    speechRatio: duration > 0 ? Math.min(1, speechSec / duration) : 0,
  };
}

/** Pitch range searched, Hz. */
const F0_MIN = 60;
const F0_MAX = 450;
/** YIN's absolute threshold on the cumulative mean normalized difference. */
const YIN_THRESHOLD = 0.15;

/**
 * F0 of the voiced frames inside `segments` (25 ms windows every 10 ms), summarised as median and
 * 10th/90th percentiles; zeros when no frame is voiced.
 */
export function measurePitch(input: Float32Array, inputRate: number, segments: readonly SpeechSegment[]): PitchFacts {
  // Voice pitch lives below 500 Hz: measuring at about 8 kHz costs a quarter of 16 kHz.
  const factor = Math.max(1, Math.floor(inputRate / 8000));
  const samples = factor === 1 ? input : decimate(input, factor);
  const sampleRate = inputRate / factor;
  const window = Math.round(0.025 * sampleRate);
  const hop = Math.round(0.01 * sampleRate);
  const minLag = Math.floor(sampleRate / F0_MAX);
  const maxLag = Math.ceil(sampleRate / F0_MIN);
  const diff = new Float64Array(maxLag + 1);
  const f0s: number[] = [];
  for (const s of segments) {
    const end = Math.min(samples.length, Math.floor(s.endSec * sampleRate)) - window - maxLag;
    for (let start = Math.max(0, Math.floor(s.startSec * sampleRate)); start < end; start += hop) {
      let energy = 0;
      for (let i = start; i < start + window; i++) energy += samples[i]! * samples[i]!;
      if (energy / window < 1e-5) continue; // below -50 dBFS: not voiced speech
      const f0 = yin(samples, start, window, minLag, maxLag, diff, sampleRate);
      if (f0 > 0) f0s.push(f0);
    }
  }
  if (f0s.length === 0) return { medianHz: 0, p10Hz: 0, p90Hz: 0, voicedFrames: 0 };
  return { medianHz: percentile(f0s, 0.5), p10Hz: percentile(f0s, 0.1), p90Hz: percentile(f0s, 0.9), voicedFrames: f0s.length };
}

/** Box-filtered decimation by `factor` (enough for a pitch tracker, not for listening). */
function decimate(x: Float32Array, factor: number): Float32Array {
  const out = new Float32Array(Math.floor(x.length / factor));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let k = 0; k < factor; k++) sum += x[i * factor + k]!;
    out[i] = sum / factor;
  }
  return out;
}

function yin(x: Float32Array, start: number, window: number, minLag: number, maxLag: number, d: Float64Array, sampleRate: number): number {
  d[0] = 1;
  let running = 0;
  for (let lag = 1; lag <= maxLag; lag++) {
    let sum = 0;
    for (let i = start; i < start + window; i++) {
      const delta = x[i]! - x[i + lag]!;
      sum += delta * delta;
    }
    running += sum;
    d[lag] = running > 0 ? (sum * lag) / running : 1;
  }
  for (let lag = minLag; lag < maxLag; lag++) {
    if (d[lag]! < YIN_THRESHOLD) {
      while (lag + 1 < maxLag && d[lag + 1]! < d[lag]!) lag++;
      // Parabolic interpolation around the minimum.
      const a = d[lag - 1]!;
      const b = d[lag]!;
      const c = d[lag + 1]!;
      const denom = a - 2 * b + c;
      const shift = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
      return sampleRate / (lag + Math.max(-1, Math.min(1, shift)));
    }
  }
  return 0;
}

/** The q-quantile (0..1) of `values` (copied, then sorted). */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))]!;
}

