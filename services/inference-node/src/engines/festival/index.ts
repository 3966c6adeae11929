/**
 * The festival engine: the Festival 2.5 HTS voice CMU US SLT served by a pool of warm festival
 * processes with the voice loaded once, spoken to over stdin/stderr (`pipe`, the default) or over
 * festival's server protocol on loopback (`server`, kept for comparison). Speed is applied natively
 * through hts_engine's speech-rate factor.
 */
import { privateTempDir, removeTempDir, TtsError } from '@tts/common';
import type { EngineInput, EngineOutput, FirstChunkPolicy, SpeedRange, SynthesisEngine, VoiceDescriptor } from '../engine.js';
import { checkedInput, throwIfCancelled, voiceNameOf } from '../workers/input-checks.js';
import { SlotPool } from '../workers/slot-pool.js';
import type { FestivalProcess, FestivalProcessOptions } from './festival-process.js';
import { FestivalPipeProcess } from './pipe-process.js';
import { findExecutable } from './process-group.js';
import { FestivalServer } from './server.js';

/**
 * How the engine talks to its festival processes: `pipe` (`festival --pipe`, Scheme on stdin,
 * waves through files in a private directory) or `server` (`festival --server` on loopback, the
 * former transport; a reply on a busy connection waits ~40 ms for TCP's delayed ACK). Both give
 * the same samples.
 */
export type FestivalTransport = 'pipe' | 'server';

/** The transports {@link createFestivalEngine} accepts. */
export const FESTIVAL_TRANSPORTS: readonly FestivalTransport[] = ['pipe', 'server'];

/** Options of {@link createFestivalEngine}. */
export interface FestivalEngineOptions {
  /** Warm festival processes (sentences synthesized in parallel). @default 2 */
  readonly processes?: number;
  /** Festival voice, loaded with `(voice_<name>)`. @default "cmu_us_slt_arctic_hts" */
  readonly voice?: string;
  /** festival executable. @default "festival" */
  readonly binary?: string;
  /** Milliseconds a process may take to start and load its voice. @default 60000 */
  readonly startTimeoutMs?: number;
  /** Milliseconds one sentence may take before its process is considered hung and replaced. @default 120000 */
  readonly requestTimeoutMs?: number;
  /** How the engine talks to festival (see {@link FestivalTransport}). @default "pipe" */
  readonly transport?: FestivalTransport;
}

/** The festival engine. */
export type FestivalEngine = SynthesisEngine;

const DEFAULT_VOICE = 'cmu_us_slt_arctic_hts';

/** Voices with a curated descriptor; any other festival voice gets a generic one. */
const KNOWN_VOICES: Readonly<Record<string, Omit<VoiceDescriptor, 'sampleRate' | 'engine'>>> = {
  cmu_us_slt_arctic_hts: {
    id: 'festival:slt',
    name: 'CMU US SLT (HTS)',
    language: 'en-US',
    languages: ['en-US', 'en'],
    gender: 'female',
    quality: 'medium',
    description: 'US English female, HTS statistical parametric voice (Festival 2.5).',
  },
};

function describeVoice(voice: string, sampleRate: number): VoiceDescriptor {
  const known = KNOWN_VOICES[voice];
  if (known) return { ...known, engine: 'festival', sampleRate };
  return {
    id: `festival:${voice.toLowerCase()}`,
    name: voice,
    engine: 'festival',
    language: 'en',
    languages: ['en'],
    gender: 'unknown',
    sampleRate,
    quality: 'low',
    description: `Festival voice ${voice}.`,
  };
}

class FestivalEngineImpl implements FestivalEngine {
  readonly name = 'festival';
  readonly description = 'Festival 2.5 (HTS voice) on a pool of warm festival processes.';
  /** hts_engine's rate factor is exact up to 3.5x; beyond, HTS runs out of frames per state. */
  readonly nativeSpeed: SpeedRange = { min: 0.25, max: 3.5 };
  readonly maxBatchSize = 1;
  readonly concurrency: number;
  readonly device = 'cpu';
  readonly features: readonly string[] = [];
  /**
   * Festival returns a whole utterance at once and its time grows with the text (pipe transport,
   * warm: 3 characters ~19 ms, 27 characters ~43 ms, 43 characters ~57 ms), so a streamed request
   * starts with at most 32 characters, cut at a word when no clause boundary fits: the first audio
   * comes sooner at the price of a phrase break mid-clause.
   */
  readonly streamingFirstChunk: FirstChunkPolicy = { maxChars: 32, minChars: 12, cutAtWord: true };
  private readonly voice: string;
  private readonly transport: FestivalTransport;
  private pool: SlotPool<FestivalProcess> | null = null;
  private workDir: string | null = null;
  private descriptor: VoiceDescriptor | null = null;

  constructor(private readonly options: FestivalEngineOptions) {
    this.concurrency = options.processes ?? 2;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new RangeError('festival: processes must be a positive integer');
    this.voice = options.voice ?? DEFAULT_VOICE;
    this.transport = options.transport ?? 'pipe';
    if (!FESTIVAL_TRANSPORTS.includes(this.transport)) throw new RangeError(`festival: unknown transport "${String(this.transport)}"`);
    if (!/^[A-Za-z0-9_]+$/.test(this.voice)) throw new RangeError(`festival: invalid voice name "${this.voice}"`);
  }

  async load(): Promise<void> {
    if (this.pool) return;
    const binary = await findExecutable(this.options.binary ?? 'festival');
    // Private (0700), festival's TMPDIR too (its utterance files), removed at close or exit.
    const workDir = await privateTempDir('tts-festival-');
    let sampleRate = 0;
    const processOptions: FestivalProcessOptions = {
      binary,
      voice: this.voice,
      workDir,
      startTimeoutMs: this.options.startTimeoutMs ?? 60_000,
      requestTimeoutMs: this.options.requestTimeoutMs ?? 120_000,
    };
    const pool = new SlotPool<FestivalProcess>({
      name: 'festival',
      size: this.concurrency,
      create: async (onDeath) => {
        const proc = this.transport === 'pipe' ? await FestivalPipeProcess.start(processOptions, onDeath) : await FestivalServer.start(processOptions, onDeath);
        sampleRate = proc.sampleRate;
        return proc;
      },
    });
    try {
      await pool.start();
    } catch (err) {
      await removeTempDir(workDir);
      throw err;
    }
    this.workDir = workDir;
    this.pool = pool;
    this.descriptor = describeVoice(this.voice, sampleRate);
  }

  voices(): readonly VoiceDescriptor[] {
    return this.descriptor ? [this.descriptor] : [];
  }

  synthesize(batch: readonly EngineInput[]): Promise<EngineOutput[]> {
    return Promise.all(batch.map((input) => this.synthesizeOne(input)));
  }

  private async synthesizeOne(input: EngineInput): Promise<EngineOutput> {
    throwIfCancelled(input.signal, this.name);
    const pool = this.pool;
    const descriptor = this.descriptor;
    if (!pool || !descriptor) throw new TtsError('TTS_ENGINE_UNAVAILABLE', 'festival: the engine is not loaded.', { retryAfterSec: 5 });
    voiceNameOf(input.voice, this.name, (n) => `festival:${n}` === descriptor.id);
    const { nativeSpeed, speedApplied } = checkedInput(input, this.nativeSpeed);
    const { samples, sampleRate, words } = await pool.run((server) => server.synthesize(input.text, nativeSpeed), { signal: input.signal });
    return { audio: { samples, sampleRate }, speedApplied, words };
  }

  /** Stops the festival processes holding the HTS voice; `load()` starts them again. */
  unload(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    const pool = this.pool;
    const workDir = this.workDir;
    this.pool = null;
    this.workDir = null;
    this.descriptor = null;
    await pool?.close();
    if (workDir) await removeTempDir(workDir);
  }
}

/** Creates the festival engine (call `load()` before use; it starts the festival processes). */
export function createFestivalEngine(options: FestivalEngineOptions = {}): FestivalEngine {
  return new FestivalEngineImpl(options);
}
