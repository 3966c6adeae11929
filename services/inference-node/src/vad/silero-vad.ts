/**
 * Silero VAD (v5/v6 ONNX) as the node's second ONNX model: speech probabilities per 32 ms window
 * at 16 kHz, speech segments (the segmentation rules of Silero's `get_speech_timestamps`:
 * hysteresis between `threshold` and `threshold - 0.15`, minimum speech and silence durations,
 * padding), the speech ratio of a clip, and trimming of non-speech edges. Audio at other rates is
 * resampled to 16 kHz first.
 *
 * The session is small (far faster than real time); it runs on the calling thread, one 32 ms window per
 * `run`, and onnxruntime-node defers each run by a `setImmediate`, so the event loop is served
 * between windows. Calls may overlap: each keeps its own recurrent state.
 */
import type * as ort from 'onnxruntime-node';
import { samplesAt } from '../audio/resample.js';
import { onnxRuntime } from '../engines/piper/onnx-session.js';
import type { PcmAudio } from '../audio/pcm.js';

/** The model's sample rate. */
export const VAD_SAMPLE_RATE = 16_000;
/** New samples per window at 16 kHz (32 ms). */
export const VAD_WINDOW = 512;
/** Samples of the previous window prepended to each input (v6 needs them). */
const CONTEXT = 64;

/** Segmentation settings. */
export interface SileroVadOptions {
  /** Probability at or above which a window is speech. @default 0.5 */
  readonly threshold?: number;
  /** Probability below which speech ends (hysteresis). @default max(threshold - 0.15, 0.01) */
  readonly negThreshold?: number;
  /** Shorter speech is dropped, ms. @default 250 */
  readonly minSpeechMs?: number;
  /** Silence shorter than this does not split speech, ms. @default 100 */
  readonly minSilenceMs?: number;
  /** Padding added on each side of a segment, ms. @default 30 */
  readonly speechPadMs?: number;
  /** Execution providers tried in order. @default ["cpu"] */
  readonly executionProviders?: readonly string[];
}

/** A stretch of speech, in seconds from the start of the clip. */
export interface SpeechSegment {
  readonly startSec: number;
  readonly endSec: number;
}

/** Voice activity detection on PCM clips. */
export interface SileroVad {
  /** Execution provider in use. */
  readonly device: string;
  /** Speech probability of each 32 ms window of the clip (after resampling to 16 kHz). */
  probabilities(audio: PcmAudio): Promise<Float32Array>;
  /** Speech segments of the clip. */
  segments(audio: PcmAudio): Promise<SpeechSegment[]>;
  /** Share of the clip's duration covered by speech segments, 0..1 (0 for an empty clip). */
  speechRatio(audio: PcmAudio): Promise<number>;
  /**
   * The clip from its first speech segment's start to its last one's end (segments include
   * `speechPadMs`); a clip without speech comes back empty.
   */
  trim(audio: PcmAudio): Promise<PcmAudio>;
  /** Frees the session. */
  close(): Promise<void>;
}

/** Loads the Silero VAD model at `modelPath` (e.g. `<shared models>/silero-vad/silero_vad.onnx`). */
export async function createSileroVad(modelPath: string, options: SileroVadOptions = {}): Promise<SileroVad> {
  const threshold = options.threshold ?? 0.5;
  if (!(threshold > 0 && threshold < 1)) throw new RangeError(`threshold must be in (0, 1), got ${threshold}`);
  const settings: Settings = {
    threshold,
    negThreshold: options.negThreshold ?? Math.max(threshold - 0.15, 0.01),
    minSpeechSamples: (VAD_SAMPLE_RATE * (options.minSpeechMs ?? 250)) / 1000,
    minSilenceSamples: (VAD_SAMPLE_RATE * (options.minSilenceMs ?? 100)) / 1000,
    padSamples: Math.round((VAD_SAMPLE_RATE * (options.speechPadMs ?? 30)) / 1000),
  };
  const runtime = await onnxRuntime();
  let lastError: unknown;
  for (const provider of options.executionProviders ?? ['cpu']) {
    try {
      const session = await runtime.InferenceSession.create(modelPath, { executionProviders: [provider], intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 3 });
      for (const name of ['input', 'state', 'sr']) {
        if (!session.inputNames.includes(name)) throw new Error(`${modelPath} is not a Silero VAD v5/v6 model (no "${name}" input)`);
      }
      return new SileroVadImpl(runtime, session, provider, settings);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

interface Settings {
  readonly threshold: number;
  readonly negThreshold: number;
  readonly minSpeechSamples: number;
  readonly minSilenceSamples: number;
  readonly padSamples: number;
}

class SileroVadImpl implements SileroVad {
  private readonly sr: ort.Tensor;

  constructor(private readonly runtime: typeof ort, private readonly session: ort.InferenceSession, readonly device: string, private readonly settings: Settings) {
    this.sr = new runtime.Tensor('int64', BigInt64Array.from([BigInt(VAD_SAMPLE_RATE)]), []);
  }

  async probabilities(audio: PcmAudio): Promise<Float32Array> {
    return this.probabilitiesAt16k(samplesAt(audio, VAD_SAMPLE_RATE));
  }

  private async probabilitiesAt16k(samples: Float32Array): Promise<Float32Array> {
    const windows = Math.ceil(samples.length / VAD_WINDOW);
    const probs = new Float32Array(windows);
    let state: ort.Tensor = new this.runtime.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
    const frame = new Float32Array(CONTEXT + VAD_WINDOW);
    for (let w = 0; w < windows; w++) {
      // The last CONTEXT samples of the previous input become this input's head.
      frame.copyWithin(0, VAD_WINDOW, VAD_WINDOW + CONTEXT);
      const chunk = samples.subarray(w * VAD_WINDOW, (w + 1) * VAD_WINDOW);
      frame.set(chunk, CONTEXT);
      if (chunk.length < VAD_WINDOW) frame.fill(0, CONTEXT + chunk.length);
      const result = await this.session.run({ input: new this.runtime.Tensor('float32', frame.slice(), [1, CONTEXT + VAD_WINDOW]), state, sr: this.sr });
      probs[w] = (result['output']!.data as Float32Array)[0]!;
      state = result['stateN'] as ort.Tensor;
    }
    return probs;
  }

  async segments(audio: PcmAudio): Promise<SpeechSegment[]> {
    const samples = samplesAt(audio, VAD_SAMPLE_RATE);
    const probs = await this.probabilitiesAt16k(samples);
    return speechSegments(probs, samples.length, this.settings).map(([start, end]) => ({
      startSec: start / VAD_SAMPLE_RATE,
      endSec: end / VAD_SAMPLE_RATE,
    }));
  }

  async speechRatio(audio: PcmAudio): Promise<number> {
    if (audio.samples.length === 0) return 0;
    const total = audio.samples.length / audio.sampleRate;
    const speech = (await this.segments(audio)).reduce((sum, s) => sum + (s.endSec - s.startSec), 0);
    return Math.min(1, speech / total);
  }

  async trim(audio: PcmAudio): Promise<PcmAudio> {
    const segments = await this.segments(audio);
    const first = segments[0];
    const last = segments[segments.length - 1];
    if (first === undefined || last === undefined) return { samples: new Float32Array(0), sampleRate: audio.sampleRate };
    const start = Math.max(0, Math.floor(first.startSec * audio.sampleRate));
    const end = Math.min(audio.samples.length, Math.ceil(last.endSec * audio.sampleRate));
    return { samples: audio.samples.slice(start, end), sampleRate: audio.sampleRate };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/**
 * Speech segments [start, end) in samples from per-window probabilities, following Silero's
 * `get_speech_timestamps` (without its max-speech splitting).
 */
function speechSegments(probs: Float32Array, totalSamples: number, s: Settings): [number, number][] {
  const segments: [number, number][] = [];
  let triggered = false;
  let start = 0;
  let tempEnd = 0;
  for (let i = 0; i < probs.length; i++) {
    const p = probs[i]!;
    const at = i * VAD_WINDOW;
    if (p >= s.threshold && tempEnd !== 0) tempEnd = 0;
    if (p >= s.threshold && !triggered) {
      triggered = true;
      start = at;
      continue;
    }
    if (p < s.negThreshold && triggered) {
      if (tempEnd === 0) tempEnd = at;
      if (at - tempEnd < s.minSilenceSamples) continue;
      if (tempEnd - start > s.minSpeechSamples) segments.push([start, tempEnd]);
      tempEnd = 0;
      triggered = false;
    }
  }
  if (triggered && totalSamples - start > s.minSpeechSamples) segments.push([start, totalSamples]);
  // Pad each segment; a gap shorter than two pads is split between its neighbours.
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (i === 0) seg[0] = Math.max(0, seg[0] - s.padSamples);
    const next = segments[i + 1];
    if (next === undefined) {
      seg[1] = Math.min(totalSamples, seg[1] + s.padSamples);
      continue;
    }
    const gap = next[0] - seg[1];
    if (gap < 2 * s.padSamples) {
      seg[1] += Math.floor(gap / 2);
      next[0] = Math.max(0, next[0] - Math.floor(gap / 2));
    } else {
      seg[1] = Math.min(totalSamples, seg[1] + s.padSamples);
      next[0] = Math.max(0, next[0] - s.padSamples);
    }
  }
  return segments;
}
