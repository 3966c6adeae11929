/**
 * The flite engine: CMU Flite 2.2 voices synthesized in-process (libflite through koffi) on a pool
 * of worker threads, so the event loop never blocks and several sentences run in parallel.
 * Speed is applied natively through flite's `duration_stretch` feature.
 */
import { availableParallelism } from 'node:os';
import type { PcmAudio } from '../../audio/pcm.js';
import { TtsError } from '@tts/common';
import type { EngineInput, EngineOutput, SpeedRange, SynthesisEngine, VoiceDescriptor } from '../engine.js';
import { checkedInput, throwIfCancelled, voiceNameOf } from '../workers/input-checks.js';
import { siblingModule, WorkerPool } from '../workers/worker-pool.js';
import { DEFAULT_FLITE_LIBRARY, isFliteVoiceName, openFlite, type FliteVoiceName } from './flite-lib.js';
import type { FliteRequest, FliteResult, FliteWorkerData } from './flite-worker.js';

/** Options of {@link createFliteEngine}. */
export interface FliteEngineOptions {
  /** Worker threads synthesizing in parallel. @default os.availableParallelism() */
  readonly workers?: number;
  /** libflite soname or path; voice libraries are looked up next to a path. @default "libflite.so.1" */
  readonly library?: string;
}

/** The flite engine. */
export type FliteEngine = SynthesisEngine;

const SAMPLE_RATE = 16_000;

const VOICES: Readonly<Record<FliteVoiceName, VoiceDescriptor>> = {
  slt: voice('slt', 'CMU US SLT', 'female', 'en-US', 'US English female (clustergen statistical parametric voice).'),
  rms: voice('rms', 'CMU US RMS', 'male', 'en-US', 'US English male (clustergen statistical parametric voice).'),
  awb: voice('awb', 'CMU US AWB', 'male', 'en-GB-scotland', 'Scottish English male speaker on the US English front end (clustergen).'),
  kal16: voice('kal16', 'CMU US KAL16', 'male', 'en-US', 'US English male (diphone voice, 16 kHz).'),
};

function voice(name: FliteVoiceName, label: string, gender: VoiceDescriptor['gender'], language: string, description: string): VoiceDescriptor {
  return { id: `flite:${name}`, name: label, engine: 'flite', language, languages: [language, 'en'], gender, sampleRate: SAMPLE_RATE, quality: 'low', description };
}

class FliteEngineImpl implements FliteEngine {
  readonly name = 'flite';
  readonly description = 'CMU Flite 2.2 voices, in-process (libflite) on a pool of worker threads.';
  /** duration_stretch scales every duration linearly; quality holds across the whole API range. */
  readonly nativeSpeed: SpeedRange = { min: 0.25, max: 4 };
  readonly maxBatchSize = 1;
  readonly concurrency: number;
  readonly device = 'cpu';
  readonly features: readonly string[] = [];
  private readonly library: string;
  private pool: WorkerPool<FliteRequest, FliteResult> | null = null;
  private loaded: readonly FliteVoiceName[] = [];

  constructor(options: FliteEngineOptions) {
    this.concurrency = options.workers ?? availableParallelism();
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new RangeError('flite: workers must be a positive integer');
    this.library = options.library ?? DEFAULT_FLITE_LIBRARY;
  }

  async load(): Promise<void> {
    if (this.pool) return;
    // Registers every voice once on this thread, before any worker exists (registration is not thread-safe).
    const flite = openFlite(this.library);
    const data: FliteWorkerData = { library: this.library };
    const pool = new WorkerPool<FliteRequest, FliteResult>({ name: 'flite', script: siblingModule(import.meta.url, 'flite-worker'), size: this.concurrency, workerData: data });
    await pool.start();
    this.pool = pool;
    this.loaded = flite.voices;
  }

  voices(): readonly VoiceDescriptor[] {
    return this.loaded.map((n) => VOICES[n]);
  }

  synthesize(batch: readonly EngineInput[]): Promise<EngineOutput[]> {
    return Promise.all(batch.map((input) => this.synthesizeOne(input)));
  }

  private async synthesizeOne(input: EngineInput): Promise<EngineOutput> {
    throwIfCancelled(input.signal, this.name);
    const pool = this.pool;
    if (!pool) throw new TtsError('TTS_ENGINE_UNAVAILABLE', 'flite: the engine is not loaded.', { retryAfterSec: 5 });
    const voiceName = voiceNameOf(input.voice, this.name, (n) => isFliteVoiceName(n) && this.loaded.includes(n)) as FliteVoiceName;
    const { nativeSpeed, speedApplied } = checkedInput(input, this.nativeSpeed);
    const result = await pool.run({ text: input.text, voice: voiceName, durationStretch: 1 / nativeSpeed }, { signal: input.signal });
    return { audio: { samples: result.samples, sampleRate: result.sampleRate }, speedApplied, words: result.words };
  }

  /** Stops the worker threads (each holds the voices it used); `load()` starts them again. */
  unload(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    this.loaded = [];
    await pool?.close();
  }
}

/** Creates the flite engine (call `load()` before use). */
export function createFliteEngine(options: FliteEngineOptions = {}): FliteEngine {
  return new FliteEngineImpl(options);
}

/**
 * Synthesizes `text` with libflite on the calling thread, without the worker pool: the baseline a
 * benchmark compares the engine against. `voiceName` is "slt" or "flite:slt"; `speed` as in `EngineInput`.
 */
export function fliteDirectSynthesize(text: string, voiceName: string, speed = 1): PcmAudio {
  const name = voiceName.toLowerCase().replace(/^flite:/, '');
  if (!isFliteVoiceName(name)) throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${voiceName}" does not exist in engine "flite".`, { loc: ['body', 'voice'] });
  if (!Number.isFinite(speed) || speed <= 0) throw new TtsError('TTS_SPEED_OUT_OF_RANGE', `Speed ${speed} is not a positive number.`, { loc: ['body', 'speed'] });
  return openFlite().synthesize(text, name, 1 / speed);
}
