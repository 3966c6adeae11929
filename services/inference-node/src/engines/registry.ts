/**
 * The engine registry: the one place that knows the concrete engines. It loads the configured
 * engines, records which failed and why, and resolves voice ids to an engine and voice.
 */
import { TtsError } from '@tts/common';
import type { Logger } from '@tts/common';
import type { SynthesisEngine, VoiceDescriptor } from './engine.js';
import type { NodeConfig } from '../config.js';
import { EngineResidency, NEVER_UNLOAD, type EngineLease, type IdleUnloadSettings, type ResidencyState } from './residency.js';

/** Settings the engine factories read: the engine fields of the node configuration (documented there). */
export type EngineSettings = Pick<
  NodeConfig,
  | 'fliteWorkers'
  | 'festivalProcesses'
  | 'festivalTransport'
  | 'modelDirs'
  | 'piperProviders'
  | 'piperIntraOpThreads'
  | 'piperGraphOptimization'
  | 'piperMaxBatchSize'
  | 'piperMaxQueueDelayMs'
  | 'piperMaxQueue'
  | 'piperConcurrentBatches'
> & {
  /** Where engines report load problems (e.g. a skipped execution provider). */
  readonly logger?: Logger;
};

/**
 * Builds an engine from settings. The factory table below is the registry's only coupling to
 * concrete engines; modules are imported lazily so a node loads only the engines it runs.
 */
export type EngineFactory = (settings: EngineSettings) => Promise<SynthesisEngine>;

const FACTORIES: Readonly<Record<string, EngineFactory>> = {
  festival: async (s) => (await import('./festival/index.js')).createFestivalEngine({ processes: s.festivalProcesses, transport: s.festivalTransport }),
  flite: async (s) => (await import('./flite/index.js')).createFliteEngine({ workers: s.fliteWorkers }),
  espeak: async () => (await import('./espeak/index.js')).createEspeakEngine(),
  piper: async (s) => {
    const [{ createPiperEngine }, { createEspeakPhonemizer }] = await Promise.all([import('./piper/index.js'), import('./espeak/index.js')]);
    const phonemizer = createEspeakPhonemizer();
    const engine = createPiperEngine({
      voiceDirs: s.modelDirs,
      phonemizer,
      executionProviders: s.piperProviders,
      intraOpThreads: s.piperIntraOpThreads,
      graphOptimizationLevel: s.piperGraphOptimization,
      batching: {
        maxBatchSize: s.piperMaxBatchSize,
        maxQueueDelayMs: s.piperMaxQueueDelayMs,
        maxQueue: s.piperMaxQueue,
        maxConcurrentBatches: s.piperConcurrentBatches,
      },
      ...(s.logger ? { logger: s.logger.child({ engine: 'piper' }) } : {}),
    });
    // The phonemizer holds a reference to the shared espeak thread: release it with the engine.
    const closeEngine = engine.close.bind(engine);
    engine.close = async () => {
      try {
        await closeEngine();
      } finally {
        await phonemizer.close();
      }
    };
    return engine;
  },
};

/** Other names clients use for an engine. */
const ALIASES: Readonly<Record<string, string>> = { 'espeak-ng': 'espeak', espeakng: 'espeak' };

/** Names of the engines this build knows, in voice-resolution priority order. */
export const KNOWN_ENGINES: readonly string[] = Object.keys(FACTORIES);

/** Canonical engine name for a client-supplied one (aliases folded, lower-cased). */
export function canonicalEngineName(name: string): string {
  const lower = name.trim().toLowerCase();
  return ALIASES[lower] ?? lower;
}

/** Load outcome of one engine. */
export interface EngineState {
  readonly name: string;
  readonly engine: SynthesisEngine | undefined;
  readonly ready: boolean;
  readonly error: string | undefined;
  /** Duration of its start-up load, ms. */
  readonly loadMs: number;
}

/** A voice resolved to the engine that speaks it. */
export interface ResolvedVoice {
  readonly engine: SynthesisEngine;
  readonly voice: VoiceDescriptor;
}

/** Loaded engines of one node. */
export class EngineRegistry {
  private readonly states: EngineState[];
  /** Voices of the ready engines as they loaded at start-up (kept while an engine is unloaded). */
  private readonly voiceIndex = new Map<string, ResolvedVoice>();
  private readonly residency: EngineResidency;

  private constructor(states: EngineState[], private readonly defaultVoiceId: string, idleUnload: IdleUnloadSettings, logger?: Logger) {
    this.states = states;
    const ready: { engine: SynthesisEngine; loadMs: number }[] = [];
    for (const s of states) {
      if (!s.ready || !s.engine) continue;
      ready.push({ engine: s.engine, loadMs: s.loadMs });
      for (const v of s.engine.voices()) this.voiceIndex.set(v.id.toLowerCase(), { engine: s.engine, voice: v });
    }
    let keep: string | undefined;
    try {
      keep = this.resolve(this.defaultVoice()).engine.name;
    } catch {
      keep = undefined; // no engine ready
    }
    this.residency = new EngineResidency(ready, idleUnload, keep, logger);
  }

  /**
   * Loads `names` (in parallel); an engine that fails to load is kept as not ready with its error,
   * so the node still serves the others. Extra engines (e.g. ONNX ones) can be passed pre-built.
   */
  static async load(
    names: readonly string[],
    settings: EngineSettings,
    logger: Logger,
    options: { defaultVoice: string; extra?: readonly SynthesisEngine[]; idleUnload?: IdleUnloadSettings },
  ): Promise<EngineRegistry> {
    const builders: { name: string; build: () => SynthesisEngine | Promise<SynthesisEngine> }[] = names.map((raw) => {
      const name = canonicalEngineName(raw);
      const factory = FACTORIES[name];
      if (!factory) throw new TtsError('TTS_ENGINE_NOT_FOUND', `Unknown engine "${raw}" in configuration.`);
      return { name, build: () => factory({ logger, ...settings }) };
    });
    for (const e of options.extra ?? []) builders.push({ name: e.name, build: () => e });
    const states = await Promise.all(
      builders.map(async ({ name, build }): Promise<EngineState> => {
        const started = Date.now();
        let engine: SynthesisEngine | undefined;
        try {
          engine = await build();
          await engine.load();
          const loadMs = Date.now() - started;
          logger.info('engine loaded', { engine: name, voices: engine.voices().length, ms: loadMs });
          return { name, engine, ready: true, error: undefined, loadMs };
        } catch (err) {
          logger.error('engine failed to load', { engine: name, err });
          await engine?.close().catch(() => undefined);
          return { name, engine, ready: false, error: err instanceof Error ? err.message : String(err), loadMs: Date.now() - started };
        }
      }),
    );
    return new EngineRegistry(states, options.defaultVoice, options.idleUnload ?? NEVER_UNLOAD, logger);
  }

  /** Every configured engine with its load outcome. */
  list(): readonly EngineState[] {
    return this.states;
  }

  /** Engines that loaded. */
  ready(): SynthesisEngine[] {
    return this.states.filter((s) => s.ready && s.engine).map((s) => s.engine as SynthesisEngine);
  }

  /** Every voice of every ready engine, loaded or unloaded when idle. */
  voices(): VoiceDescriptor[] {
    return [...this.voiceIndex.values()].map((r) => r.voice);
  }

  /** Voices of `engine` (as it loaded at start-up). */
  voicesOf(engine: string): VoiceDescriptor[] {
    return this.voices().filter((v) => v.engine === engine);
  }

  /** True when the voice's engine holds it in memory now (not unloaded when idle). */
  isLoaded(voice: VoiceDescriptor): boolean {
    return this.residency.state(voice.engine)?.loaded ?? false;
  }

  /** Residency of a ready engine (loaded, last load time, idle time); undefined for others. */
  residencyOf(engine: string): ResidencyState | undefined {
    return this.residency.state(engine);
  }

  /**
   * Marks the engine in use until the lease is released (it is not unloaded meanwhile), loading it
   * again first when it was unloaded for idleness; the lease says how long that took. Every call of
   * an engine's `synthesize` runs under a lease.
   */
  acquire(engine: string): Promise<EngineLease> {
    return this.residency.acquire(engine);
  }

  /** Runs `fn` under a lease of `engine` (see acquire). */
  use<T>(engine: string, fn: () => Promise<T>): Promise<T> {
    return this.residency.use(engine, fn);
  }

  /** Unloads the engines idle for their configured time now (the idle timer calls it too). */
  unloadIdle(): Promise<void> {
    return this.residency.sweep();
  }

  /** The default voice id: the configured one when its engine is ready, else the first ready English voice. */
  defaultVoice(): string {
    if (this.voiceIndex.has(this.defaultVoiceId.toLowerCase())) return this.defaultVoiceId;
    const en = this.voices().find((v) => v.language.toLowerCase().startsWith('en'));
    const any = en ?? this.voices()[0];
    if (!any) throw new TtsError('TTS_ENGINE_UNAVAILABLE', 'No engine is ready on this node.');
    return any.id;
  }

  /**
   * Resolves a voice id ("engine:name", or a bare name searched in engine priority order) and an
   * optional engine name to a ready engine and voice.
   */
  resolve(voiceId: string, engineName?: string): ResolvedVoice {
    const engine = engineName ? canonicalEngineName(engineName) : '';
    if (engine !== '') {
      const state = this.states.find((s) => s.name === engine);
      if (!state) throw new TtsError('TTS_ENGINE_NOT_FOUND', `Engine "${engineName}" does not exist.`, { loc: ['engine'] });
      if (!state.ready) throw new TtsError('TTS_ENGINE_UNAVAILABLE', `Engine "${engine}" is not ready on this node.`, { retryAfterSec: 5 });
    }
    const wanted = voiceId.trim() === '' ? (engine === '' ? this.defaultVoice() : this.firstVoiceOf(engine)) : voiceId.trim();
    const colon = wanted.indexOf(':');
    if (colon > 0) {
      const prefix = canonicalEngineName(wanted.slice(0, colon));
      const id = `${prefix}:${wanted.slice(colon + 1)}`.toLowerCase();
      if (engine !== '' && prefix !== engine) {
        throw new TtsError('TTS_ENGINE_VOICE_MISMATCH', `Voice "${wanted}" does not belong to engine "${engine}".`, { loc: ['voice'] });
      }
      const hit = this.voiceIndex.get(id);
      if (hit) return hit;
      const state = this.states.find((s) => s.name === prefix);
      if (state && !state.ready) throw new TtsError('TTS_ENGINE_UNAVAILABLE', `Engine "${prefix}" is not ready on this node.`, { retryAfterSec: 5 });
      throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${wanted}" does not exist.`, { loc: ['voice'] });
    }
    const order = engine !== '' ? [engine] : this.states.map((s) => s.name);
    for (const name of order) {
      const hit = this.voiceIndex.get(`${name}:${wanted}`.toLowerCase());
      if (hit) return hit;
    }
    throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${wanted}" does not exist.`, { loc: ['voice'] });
  }

  private firstVoiceOf(engine: string): string {
    const v = this.voices().find((x) => x.engine === engine);
    if (!v) throw new TtsError('TTS_ENGINE_UNAVAILABLE', `Engine "${engine}" has no voices on this node.`);
    return v.id;
  }

  /** Closes every loaded engine. */
  async close(): Promise<void> {
    this.residency.close();
    await Promise.all(this.states.map((s) => s.engine?.close().catch(() => undefined)));
  }
}
