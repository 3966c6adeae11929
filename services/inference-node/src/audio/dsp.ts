/** Small in-memory operations on PCM clips: levels, silence trimming, peak limiting, joining. */
import type { PcmAudio } from './pcm.js';

/** Peak at or below one 16-bit step: such a clip is treated as silent whatever the threshold. */
const SILENT_PEAK = 1 / 32768;

/** Root mean square level of `samples` (0 for none). */
export function rms(samples: Float32Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / samples.length);
}

/** Largest absolute sample value (0 for none). */
export function peak(samples: Float32Array): number {
  let max = 0;
  for (let i = 0; i < samples.length; i++) {
    const a = Math.abs(samples[i]!);
    if (a > max) max = a;
  }
  return max;
}

/** Options of `trimSilence`. */
export interface TrimSilenceOptions {
  /** Level relative to the clip's peak below which samples count as silence (dB). @default -45 */
  readonly thresholdDb?: number;
  /** Silence kept before the first and after the last sound (ms). @default 80 */
  readonly padMs?: number;
  /** Ends to trim; for streaming, the first chunk trims 'start' only and the last chunk 'end' only. @default 'both' */
  readonly edges?: 'both' | 'start' | 'end' | 'none';
}

/**
 * Where `trimSilence` would cut: the samples kept are `[start, end)`. A sample is sound when its
 * magnitude reaches `thresholdDb` relative to the clip's peak. A clip that is silent throughout
 * (peak at or below one 16-bit step) keeps its first `padMs` (or all of it if shorter) unless
 * `edges` is 'none'.
 */
export function silenceBounds(audio: PcmAudio, options: TrimSilenceOptions = {}): { readonly start: number; readonly end: number } {
  const { thresholdDb = -45, padMs = 80, edges = 'both' } = options;
  if (!Number.isFinite(thresholdDb) || thresholdDb > 0) throw new RangeError(`thresholdDb must be a finite number <= 0, got ${String(thresholdDb)}`);
  if (!Number.isFinite(padMs) || padMs < 0) throw new RangeError(`padMs must be a finite number >= 0, got ${String(padMs)}`);
  const samples = audio.samples;
  if (edges === 'none' || samples.length === 0) return { start: 0, end: samples.length };
  const pad = Math.round((padMs * audio.sampleRate) / 1000);
  const top = peak(samples);
  if (top <= SILENT_PEAK) return { start: 0, end: Math.min(pad, samples.length) };
  const threshold = top * 10 ** (thresholdDb / 20);
  let first = 0;
  while (Math.abs(samples[first]!) < threshold) first++;
  let last = samples.length - 1;
  while (Math.abs(samples[last]!) < threshold) last--;
  const start = edges === 'end' ? 0 : Math.max(0, first - pad);
  const end = edges === 'start' ? samples.length : Math.min(samples.length, last + 1 + pad);
  return { start, end };
}

/**
 * Trims leading/trailing silence down to a short pad, where `silenceBounds` says. The result is a
 * view of the input's samples (no copy); the input itself when nothing is cut.
 */
export function trimSilence(audio: PcmAudio, options: TrimSilenceOptions = {}): PcmAudio {
  const { start, end } = silenceBounds(audio, options);
  if (start === 0 && end === audio.samples.length) return audio;
  return { samples: audio.samples.subarray(start, end), sampleRate: audio.sampleRate };
}

/**
 * Guarantees no clipping: scales the clip so every |sample| <= `ceiling` (default 0.97, about -0.26 dBFS);
 * returns quieter audio untouched (the same object).
 */
export function limitPeak(audio: PcmAudio, ceiling = 0.97): PcmAudio {
  if (!Number.isFinite(ceiling) || ceiling <= 0) throw new RangeError(`ceiling must be a positive number, got ${String(ceiling)}`);
  const top = peak(audio.samples);
  if (top <= ceiling) return audio;
  // Float32 rounding of top·gain may land a hair above the ceiling; shave the gain until it cannot.
  let gain = ceiling / top;
  while (Math.fround(top * gain) > ceiling) gain *= 1 - 1e-7;
  const samples = new Float32Array(audio.samples.length);
  for (let i = 0; i < samples.length; i++) samples[i] = audio.samples[i]! * gain;
  return { samples, sampleRate: audio.sampleRate };
}

/** Concatenates clips of the same sample rate with an optional silence gap between them (not at the ends). */
export function concatAudio(clips: readonly PcmAudio[], gapMs = 0): PcmAudio {
  const first = clips[0];
  if (first === undefined) throw new RangeError('concatAudio needs at least one clip (the sample rate comes from the clips)');
  if (!Number.isFinite(gapMs) || gapMs < 0) throw new RangeError(`gapMs must be a finite number >= 0, got ${String(gapMs)}`);
  const sampleRate = first.sampleRate;
  const gap = Math.round((gapMs * sampleRate) / 1000);
  let total = gap * (clips.length - 1);
  for (const clip of clips) {
    if (clip.sampleRate !== sampleRate) throw new RangeError(`concatAudio: clip at ${clip.sampleRate} Hz among clips at ${sampleRate} Hz; resample first`);
    total += clip.samples.length;
  }
  const samples = new Float32Array(total);
  let at = 0;
  for (const clip of clips) {
    samples.set(clip.samples, at);
    at += clip.samples.length + gap;
  }
  return { samples, sampleRate };
}

/** Silence of the given length (rounded to whole samples). */
export function silence(sampleRate: number, ms: number): PcmAudio {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new RangeError(`sampleRate must be a positive integer, got ${String(sampleRate)}`);
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`ms must be a finite number >= 0, got ${String(ms)}`);
  return { samples: new Float32Array(Math.round((ms * sampleRate) / 1000)), sampleRate };
}
