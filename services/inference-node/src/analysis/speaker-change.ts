/**
 * The more-than-one-speaker check of a reference clip, without a neural model: the speech's
 * short-term spectral envelope (MFCC: 25 ms frames every 10 ms, 40 mel bands from 100 to
 * 7600 Hz, cepstra 1-20) is cut into windows of 2 s of speech, each window is modelled as one
 * full-covariance Gaussian, and every pair of windows is compared by the generalized likelihood
 * ratio of "one speaker" against "two speakers", per frame (the statistic under BIC speaker-change
 * detection: Gish, Siu and Rohlicek 1991; Chen and Gopalakrishnan 1998). Windows of one voice
 * share their envelope's distribution; two voices' windows do not.
 *
 * Why not x-vectors: Vosk computes one only inside a recognizer, so the acoustic model runs over
 * the clip; this check costs a small fraction of that and separated the voices of
 * bench/reference.ts better (bench/README.md, `reference`). The threshold was set on those voices; every
 * window holds the same number of frames, so scores are comparable across clips.
 */
import { fft } from '../audio/fft.js';
import type { SpeechSegment } from '../vad/index.js';

const RATE = 16_000;
const FRAME = 400;
const HOP = 160;
const FFT_SIZE = 512;
const MEL_BANDS = 40;
const CEPSTRA = 20;
/** Frames below the loudest frame by more than this are pauses, not speech, dB. */
const SPEECH_FLOOR_DB = 35;
/** Frames below this level (mean square, dBFS) are never speech. */
const SILENCE_DB = -60;

/** The check's settings (documented with the MULTIPLE_SPEAKERS warning). */
export const SPEAKER_CHECK = Object.freeze({
  /** Speech frames per window (2 s of speech), and between the starts of two windows (1 s: a window inside each voice's turn). */
  windowFrames: 200,
  windowHop: 100,
  /** Score (per-frame log-likelihood ratio) above which two windows are taken for two speakers. */
  threshold: 2.4,
  /** Windows compared at most (the first 30: a minute of speech). */
  maxWindows: 30,
} as const);

/** What the check found. */
export interface SpeakerChange {
  /** Windows of 2 s of speech compared. */
  readonly windows: number;
  /** Largest score over all pairs of windows (0 with fewer than two windows). */
  readonly score: number;
  /** 2 when some pair scored above the threshold, else 1. */
  readonly speakers: 1 | 2;
}

const melOf = (hz: number): number => 2595 * Math.log10(1 + hz / 700);
const hzOf = (mel: number): number => 700 * (10 ** (mel / 2595) - 1);

/** Triangular mel filters over FFT bins, and the DCT-II rows of cepstra 1..CEPSTRA. */
const TABLES = (() => {
  const low = melOf(100);
  const high = melOf(7600);
  const edges = Array.from({ length: MEL_BANDS + 2 }, (_, i) => (hzOf(low + ((high - low) * i) / (MEL_BANDS + 1)) * FFT_SIZE) / RATE);
  const filters = Array.from({ length: MEL_BANDS }, (_, m) => {
    const [l, c, r] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    const first = Math.ceil(l);
    const weights = new Float64Array(Math.floor(r) - first + 1);
    for (let k = first; k <= Math.floor(r); k++) weights[k - first] = k <= c ? (k - l) / (c - l) : (r - k) / (r - c);
    return { first, weights };
  });
  const dct = Array.from({ length: CEPSTRA }, (_, q) => Float64Array.from({ length: MEL_BANDS }, (_, m) => Math.cos((Math.PI * (q + 1) * (m + 0.5)) / MEL_BANDS)));
  const window = Float64Array.from({ length: FRAME }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME - 1)));
  return { filters, dct, window };
})();

/** MFCC of the speech frames of mono 16 kHz audio: frames inside a VAD segment (all frames without segments), above the pause floor and above -60 dBFS. */
export function speechCepstra(pcm16k: Float32Array, segments: readonly SpeechSegment[]): Float64Array[] {
  const frames = pcm16k.length < FRAME ? 0 : Math.floor((pcm16k.length - FRAME) / HOP) + 1;
  const energy = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let i = f * HOP; i < f * HOP + FRAME; i++) sum += pcm16k[i]! * pcm16k[i]!;
    energy[f] = 10 * Math.log10(sum / FRAME + 1e-12);
  }
  const inSpeech = new Uint8Array(frames).fill(segments.length === 0 ? 1 : 0);
  for (const s of segments) {
    const first = Math.max(0, Math.ceil((s.startSec * RATE - FRAME / 2) / HOP));
    const last = Math.min(frames - 1, Math.floor((s.endSec * RATE - FRAME / 2) / HOP));
    for (let f = first; f <= last; f++) inSpeech[f] = 1;
  }
  let loudest = -Infinity;
  for (let f = 0; f < frames; f++) if (inSpeech[f]) loudest = Math.max(loudest, energy[f]!);
  const { filters, dct, window } = TABLES;
  const re = new Float64Array(FFT_SIZE);
  const im = new Float64Array(FFT_SIZE);
  const logMel = new Float64Array(MEL_BANDS);
  const out: Float64Array[] = [];
  for (let f = 0; f < frames; f++) {
    if (!inSpeech[f] || energy[f]! < Math.max(loudest - SPEECH_FLOOR_DB, SILENCE_DB)) continue;
    const at = f * HOP;
    re.fill(0);
    im.fill(0);
    let previous = at > 0 ? pcm16k[at - 1]! : 0;
    for (let i = 0; i < FRAME; i++) {
      const x = pcm16k[at + i]!;
      re[i] = (x - 0.97 * previous) * window[i]!;
      previous = x;
    }
    fft(re, im);
    for (let m = 0; m < MEL_BANDS; m++) {
      const { first, weights } = filters[m]!;
      let sum = 0;
      for (let k = 0; k < weights.length; k++) sum += weights[k]! * (re[first + k]! * re[first + k]! + im[first + k]! * im[first + k]!);
      logMel[m] = Math.log(sum + 1e-10);
    }
    const c = new Float64Array(CEPSTRA);
    for (let q = 0; q < CEPSTRA; q++) {
      const row = dct[q]!;
      let sum = 0;
      for (let m = 0; m < MEL_BANDS; m++) sum += row[m]! * logMel[m]!;
      c[q] = sum;
    }
    out.push(c);
  }
  return out;
}

/** Sufficient statistics of a window: frame count, sum and sum of outer products. */
interface Stats {
  readonly n: number;
  readonly sum: Float64Array;
  readonly outer: Float64Array;
}

function statsOf(frames: readonly Float64Array[]): Stats {
  const d = CEPSTRA;
  const sum = new Float64Array(d);
  const outer = new Float64Array(d * d);
  for (const x of frames) {
    for (let i = 0; i < d; i++) {
      sum[i]! += x[i]!;
      for (let j = 0; j <= i; j++) outer[i * d + j]! += x[i]! * x[j]!;
    }
  }
  return { n: frames.length, sum, outer };
}

/** log |covariance| of the frames of one or two windows (Cholesky; lower triangle). */
function logDetCovariance(a: Stats, b?: Stats): number {
  const d = CEPSTRA;
  const n = a.n + (b?.n ?? 0);
  const cov = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    const mi = (a.sum[i]! + (b?.sum[i] ?? 0)) / n;
    for (let j = 0; j <= i; j++) {
      const mj = (a.sum[j]! + (b?.sum[j] ?? 0)) / n;
      cov[i * d + j] = (a.outer[i * d + j]! + (b?.outer[i * d + j] ?? 0)) / n - mi * mj;
    }
  }
  let logDet = 0;
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = cov[i * d + j]!;
      for (let k = 0; k < j; k++) s -= cov[i * d + k]! * cov[j * d + k]!;
      if (i === j) {
        const diagonal = Math.sqrt(Math.max(s, 1e-12));
        cov[i * d + i] = diagonal;
        logDet += 2 * Math.log(diagonal);
      } else {
        cov[i * d + j] = s / cov[j * d + j]!;
      }
    }
  }
  return logDet;
}

/** Compares every pair of 2 s speech windows of a clip. */
export function detectSpeakerChange(pcm16k: Float32Array, segments: readonly SpeechSegment[]): SpeakerChange {
  const cepstra = speechCepstra(pcm16k, segments);
  const { windowFrames, windowHop, threshold, maxWindows } = SPEAKER_CHECK;
  const windows: Stats[] = [];
  for (let at = 0; at + windowFrames <= cepstra.length && windows.length < maxWindows; at += windowHop) windows.push(statsOf(cepstra.slice(at, at + windowFrames)));
  const own = windows.map((w) => logDetCovariance(w));
  let score = 0;
  for (let i = 0; i < windows.length; i++) {
    for (let j = i + 1; j < windows.length; j++) {
      if (j * windowHop < i * windowHop + windowFrames) continue; // overlapping windows share frames
      const a = windows[i]!;
      const b = windows[j]!;
      const n = a.n + b.n;
      const glr = (n * logDetCovariance(a, b) - a.n * own[i]! - b.n * own[j]!) / (2 * n);
      score = Math.max(score, glr);
    }
  }
  return { windows: windows.length, score, speakers: score > threshold ? 2 : 1 };
}
