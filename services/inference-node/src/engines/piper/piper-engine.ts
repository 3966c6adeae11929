/**
 * The Piper engine: Piper-format voices (`voice.onnx` + `voice.onnx.json`) found on a search path,
 * phonemized with espeak-ng IPA, mapped to ids as Piper does, and run through one dynamic batcher
 * in front of the voices' ONNX sessions (kept in a worker thread).
 *
 * Voice ids: `piper:<name>` for a single-speaker voice (`<name>` is the file name without `.onnx`,
 * e.g. `piper:en_US-lessac-medium`); `piper:<name>#<speaker>` for each speaker of a multi-speaker
 * voice, `<speaker>` being its `speaker_id_map` name (or its numeric id when the map is empty).
 * `synthesize` also accepts `piper:<name>#<sid>` with a numeric sid and `piper:<name>` (speaker 0).
 *
 * Speed maps to the length scale (`length_scale / speed`); items of one batch share one `scales`
 * tensor, so requests batch together when they use the same voice model and the same speed.
 */
import { TtsError } from '@tts/common';
import type { Logger } from '@tts/common';
import { DynamicBatcher, type DynamicBatcherStats } from '../../batching/index.js';
import type { EngineInput, EngineOutput, Phonemizer, SpeedRange, SynthesisEngine, TextPart, VoiceDescriptor } from '../engine.js';
import { startOnnxRunner, type OnnxRunner } from './onnx-runner.js';
import { normalizeProviders, type GraphOptimizationLevel } from './onnx-session.js';
import { phonemesToIds, splitPhonemes } from './phoneme-ids.js';
import { PiperModel, type PiperScales } from './piper-model.js';
import { findPiperVoices, readPiperConfig, type PiperVoiceConfig, type PiperVoiceFiles } from './voice-config.js';

/** Dynamic batching settings of the engine. */
export interface PiperBatchingOptions {
  /** Largest batch per session call. @default 8 */
  readonly maxBatchSize?: number;
  /** Longest wait for a batch to fill, ms (0: batch only what is already waiting). @default 0 */
  readonly maxQueueDelayMs?: number;
  /** Utterances allowed to wait; more are refused with TTS_NODE_OVERLOADED. @default 64 */
  readonly maxQueue?: number;
  /**
   * Batches running at once; each runs in its own worker thread holding its own copy of every
   * voice session (memory grows accordingly). On CPU, pair it with a small `intraOpThreads`.
   * @default 1
   */
  readonly maxConcurrentBatches?: number;
}

/** Options of `createPiperEngine`. */
export interface PiperEngineOptions {
  /** Directories searched for voices (and two levels of subfolders), in priority order. */
  readonly voiceDirs: readonly string[];
  /** espeak-ng IPA phonemizer. */
  readonly phonemizer: Phonemizer;
  /** Execution providers tried in order; the first that works is used. @default ["cpu"] */
  readonly executionProviders?: readonly string[];
  /** onnxruntime intra-op threads; 0 = one per core. @default 0 */
  readonly intraOpThreads?: number;
  /** onnxruntime inter-op threads. @default 0 */
  readonly interOpThreads?: number;
  /** @default "all" */
  readonly graphOptimizationLevel?: GraphOptimizationLevel;
  /** Dynamic batching; see PiperBatchingOptions for defaults. */
  readonly batching?: PiperBatchingOptions;
  /** Where sessions run. @default "worker" */
  readonly inferenceThread?: 'worker' | 'main';
  /** Silence inserted between the sentences the phonemizer returns for one input. @default 0.2 */
  readonly sentenceSilenceSec?: number;
  /** Scale each sentence to peak 1.0, as Piper does. @default true */
  readonly normalizeAudio?: boolean;
  /** Trailing level trimmed from models without `output_lengths` (see PiperModel). @default 0.001 */
  readonly silenceThreshold?: number;
  /** Speed factors applied through the length scale; others are left to the node. @default { min: 0.5, max: 2 } */
  readonly nativeSpeed?: SpeedRange;
  /** Where load problems and unknown phonemes are reported. */
  readonly logger?: Logger;
}

/** Counters of a Piper engine. */
export interface PiperEngineStats {
  readonly batcher: DynamicBatcherStats;
  /** Phonemes skipped because a voice's id map lacks them, with counts. */
  readonly missingPhonemes: Readonly<Record<string, number>>;
  /** Execution provider of each loaded voice model. */
  readonly providers: Readonly<Record<string, string>>;
}

/** The Piper engine plus its counters. */
export interface PiperEngine extends SynthesisEngine {
  /** Batcher counters, skipped phonemes and providers in use. */
  stats(): PiperEngineStats;
}

interface Job {
  readonly model: PiperModel;
  readonly ids: readonly number[];
  readonly sid: number;
  readonly scales: PiperScales;
}

interface VoiceTarget {
  readonly model: PiperModel;
  readonly sid: number;
}

const ENGINE = 'piper';

/** Creates the Piper engine; nothing is read or loaded before `load()`. */
export function createPiperEngine(options: PiperEngineOptions): PiperEngine {
  return new PiperEngineImpl(options);
}

function qualityOf(quality: string): VoiceDescriptor['quality'] {
  if (quality === 'high') return 'high';
  if (quality === 'medium') return 'medium';
  return 'low';
}

function concat(pieces: readonly Float32Array[], gap: number): Float32Array {
  const total = pieces.reduce((n, p) => n + p.length, 0) + gap * Math.max(0, pieces.length - 1);
  const out = new Float32Array(total);
  let offset = 0;
  pieces.forEach((piece, i) => {
    if (i > 0) offset += gap;
    out.set(piece, offset);
    offset += piece.length;
  });
  return out;
}

function normalizePeak(samples: Float32Array): Float32Array {
  let max = 0;
  for (const s of samples) max = Math.max(max, Math.abs(s));
  if (max < 1e-8) return samples.fill(0);
  const gain = 1 / max;
  for (let i = 0; i < samples.length; i++) samples[i]! *= gain;
  return samples;
}

class PiperEngineImpl implements PiperEngine {
  readonly name = ENGINE;
  readonly description = 'Piper (VITS) neural voices in ONNX format, espeak-ng phonemes, dynamic batching.';
  readonly nativeSpeed: SpeedRange;
  readonly maxBatchSize: number;
  readonly concurrency: number;
  private readonly batcher: DynamicBatcher<Job, Float32Array>;
  private readonly models: PiperModel[] = [];
  private readonly voiceList: VoiceDescriptor[] = [];
  private readonly targets = new Map<string, VoiceTarget>();
  private readonly missing = new Map<string, number>();
  private runner: OnnxRunner | undefined;
  private loaded = false;

  constructor(private readonly options: PiperEngineOptions) {
    const batching = options.batching ?? {};
    this.maxBatchSize = batching.maxBatchSize ?? 8;
    const slots = batching.maxConcurrentBatches ?? 1;
    this.concurrency = this.maxBatchSize * slots;
    this.nativeSpeed = options.nativeSpeed ?? { min: 0.5, max: 2 };
    this.batcher = new DynamicBatcher<Job, Float32Array>({
      maxBatchSize: this.maxBatchSize,
      maxQueueDelayMs: batching.maxQueueDelayMs ?? 0,
      maxQueue: batching.maxQueue ?? 64,
      maxConcurrentBatches: slots,
      batchKey: (job) => `${job.model.name}|${job.scales.noiseScale}|${job.scales.lengthScale}|${job.scales.noiseW}`,
      similarity: (job) => job.ids.length,
      run: (jobs) => jobs[0]!.model.infer(jobs, jobs[0]!.scales),
    });
  }

  /** Providers the loaded models run on ("cpu", "cuda", ...), joined by "," when they differ. */
  get device(): string {
    const providers = [...new Set(this.models.map((m) => m.provider))];
    return providers.length === 0 ? normalizeProviders(this.options.executionProviders).at(-1) ?? 'cpu' : providers.join(',');
  }

  get features(): readonly string[] {
    const features = ['batching', 'native-speed'];
    // Voices read espeak-ng IPA, so an SSML <phoneme>'s IPA goes in as it is.
    if (this.models.some((m) => m.config.phonemeType !== 'text')) features.push('ipa-input');
    if (this.models.some((m) => m.config.numSpeakers > 1)) features.push('multi-speaker');
    return features;
  }

  async load(): Promise<void> {
    if (this.loaded) return;
    const found = await findPiperVoices(this.options.voiceDirs);
    if (found.length === 0) {
      throw new TtsError('MODEL_NOT_INSTALLED', `No Piper voice (X.onnx with X.onnx.json) in ${this.options.voiceDirs.join(', ') || '(no directory configured)'}.`);
    }
    const failures: string[] = [];
    const skip = (voice: string, error: unknown): void => {
      const message = error instanceof Error ? error.message : String(error);
      failures.push(message);
      this.options.logger?.warn('piper voice skipped', { voice, err: message });
    };
    const voices: { files: PiperVoiceFiles; config: PiperVoiceConfig }[] = [];
    for (const files of found) {
      try {
        voices.push({ files, config: await readPiperConfig(files) });
      } catch (error) {
        skip(files.name, error);
      }
    }
    const batching = this.options.batching ?? {};
    const runner = await startOnnxRunner(voices.map((v) => v.files.onnxPath), {
      executionProviders: normalizeProviders(this.options.executionProviders),
      intraOpThreads: this.options.intraOpThreads ?? 0,
      interOpThreads: this.options.interOpThreads ?? 0,
      graphOptimizationLevel: this.options.graphOptimizationLevel ?? 'all',
      thread: this.options.inferenceThread ?? 'worker',
      workers: batching.maxConcurrentBatches ?? 1,
    });
    voices.forEach(({ files, config }, i) => {
      const session = runner.sessions[i]!;
      try {
        if (session instanceof Error) throw session;
        const model = new PiperModel(files, config, session, { silenceThreshold: this.options.silenceThreshold ?? 1e-3 });
        for (const skipped of model.skippedProviders) {
          this.options.logger?.warn('execution provider unavailable, trying the next one', { voice: files.name, provider: skipped.provider, err: skipped.error });
        }
        this.addModel(model);
      } catch (error) {
        skip(files.name, error);
      }
    });
    if (this.models.length === 0) {
      await runner.close();
      throw new Error(`No Piper voice could be loaded: ${failures.join('; ')}`);
    }
    this.runner = runner;
    this.loaded = true;
  }

  private addModel(model: PiperModel): void {
    this.models.push(model);
    const { config } = model;
    const base = {
      engine: ENGINE, language: config.language, languages: [config.language], gender: 'unknown' as const,
      sampleRate: config.sampleRate, quality: qualityOf(config.quality),
    };
    this.targets.set(`${ENGINE}:${model.name}`.toLowerCase(), { model, sid: 0 });
    if (config.numSpeakers <= 1) {
      this.voiceList.push({ ...base, id: `${ENGINE}:${model.name}`, name: model.name, description: `Piper voice ${config.dataset} (${config.quality})` });
      return;
    }
    const names = new Map<number, string>();
    for (const [speaker, sid] of config.speakerIdMap) if (!names.has(sid)) names.set(sid, speaker);
    for (let sid = 0; sid < config.numSpeakers; sid++) {
      const speaker = names.get(sid) ?? String(sid);
      const name = `${model.name}#${speaker}`;
      this.voiceList.push({ ...base, id: `${ENGINE}:${name}`, name, description: `Piper voice ${config.dataset} (${config.quality}), speaker ${speaker}` });
      this.targets.set(`${ENGINE}:${name}`.toLowerCase(), { model, sid });
      this.targets.set(`${ENGINE}:${model.name}#${sid}`.toLowerCase(), { model, sid });
    }
  }

  voices(): readonly VoiceDescriptor[] {
    return this.voiceList;
  }

  async synthesize(batch: readonly EngineInput[]): Promise<EngineOutput[]> {
    if (!this.loaded) throw new TtsError('TTS_ENGINE_UNAVAILABLE', 'The piper engine is not loaded.');
    return Promise.all(batch.map((input) => this.synthesizeOne(input)));
  }

  private async synthesizeOne(input: EngineInput): Promise<EngineOutput> {
    const target = this.targets.get(input.voice.trim().toLowerCase());
    if (target === undefined) throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${input.voice}" does not exist in the piper engine.`, { loc: ['voice'] });
    if (input.signal?.aborted === true) throw new TtsError('TTS_CANCELLED');
    const { model, sid } = target;
    const { config } = model;
    const speedApplied = input.speed >= this.nativeSpeed.min && input.speed <= this.nativeSpeed.max;
    const scales = model.scalesFor(speedApplied ? input.speed : 1);
    try {
      const sentences =
        config.phonemeType === 'text' ? [input.text]
        : input.phonemes !== undefined ? [input.phonemes] // IPA given (SSML <phoneme>): what the phonemizer would produce
        : input.parts !== undefined ? [await this.phonemizeParts(input.parts, config.espeakVoice)]
        : await this.options.phonemizer.phonemize(input.text, config.espeakVoice);
      const jobs: Job[] = [];
      for (const sentence of sentences) {
        const { ids, missing, mapped } = phonemesToIds(splitPhonemes(sentence, config.phonemeMap), config.phonemeIdMap);
        this.recordMissing(model.name, missing);
        if (mapped > 0) jobs.push({ model, ids, sid, scales });
      }
      const pieces = await Promise.all(jobs.map((job) => this.batcher.submit(job, input.signal)));
      if (this.options.normalizeAudio ?? true) pieces.forEach(normalizePeak);
      const gap = Math.round((this.options.sentenceSilenceSec ?? 0.2) * config.sampleRate);
      return { audio: { samples: concat(pieces, gap), sampleRate: config.sampleRate }, speedApplied };
    } catch (error) {
      if (error instanceof TtsError) throw error;
      this.options.logger?.error('piper synthesis failed', { voice: input.voice, err: error instanceof Error ? error.message : String(error) });
      throw new TtsError('TTS_ENGINE_FAILED', undefined, { cause: error });
    }
  }

  /**
   * One utterance of parts: the words phonemized, the lexicon's IPA as it is (NFD, as the phonemizer
   * writes it), in order, so the sentence is one inference and keeps its prosody.
   */
  private async phonemizeParts(parts: readonly TextPart[], espeakVoice: string): Promise<string> {
    const pieces = await Promise.all(parts.map(async (p) => (p.ipa !== undefined ? p.ipa.normalize('NFD') : (await this.options.phonemizer.phonemize(p.text, espeakVoice)).join(' '))));
    return pieces.map((p) => p.trim()).filter((p) => p !== '').join(' ');
  }

  private recordMissing(voice: string, missing: ReadonlyMap<string, number>): void {
    if (missing.size === 0) return;
    for (const [phoneme, count] of missing) this.missing.set(phoneme, (this.missing.get(phoneme) ?? 0) + count);
    this.options.logger?.debug('phonemes missing from the voice id map were skipped', { voice, phonemes: Object.fromEntries(missing) });
  }

  stats(): PiperEngineStats {
    return {
      batcher: this.batcher.stats,
      missingPhonemes: Object.fromEntries(this.missing),
      providers: Object.fromEntries(this.models.map((m) => [m.name, m.provider])),
    };
  }

  /** Releases every voice's ONNX session (the runner's worker threads end); `load()` opens them again. */
  async unload(): Promise<void> {
    this.loaded = false;
    this.models.length = 0;
    this.voiceList.length = 0;
    this.targets.clear();
    const runner = this.runner;
    this.runner = undefined;
    await runner?.close();
  }

  async close(): Promise<void> {
    await this.batcher.close();
    await this.unload();
  }
}
