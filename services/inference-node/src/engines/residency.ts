/**
 * Idle unload: which engines hold their voices in memory now. Every use of an engine goes through
 * a lease (`acquire`); an engine that no lease used for its idle time is unloaded (`unload()`:
 * piper releases its ONNX sessions, festival stops its processes, flite its worker threads, espeak
 * its reference to the espeak thread), and the next lease loads it again and reports how long that
 * took. The engine of the node's default voice stays loaded unless configured otherwise.
 *
 * The unit is the engine: its voices share what it holds (festival's one HTS voice in every
 * process, flite's voices in every worker thread, piper's sessions in one runner), so a voice is
 * loaded exactly when its engine is.
 */
import { performance } from 'node:perf_hooks';
import { TtsError } from '@tts/common';
import type { Logger } from '@tts/common';
import type { SynthesisEngine } from './engine.js';

/** Idle unload settings of a node (TTS_VOICE_IDLE_UNLOAD_SEC and friends, see the node's config). */
export interface IdleUnloadSettings {
  /** Seconds unused before an engine is unloaded; 0 = never. @default 0 */
  readonly defaultSec: number;
  /** The same per engine name, overriding `defaultSec`. */
  readonly perEngine: Readonly<Record<string, number>>;
  /** Also unload the engine of the default voice. @default false */
  readonly unloadDefaultVoice: boolean;
}

/** Idle unload switched off. */
export const NEVER_UNLOAD: IdleUnloadSettings = Object.freeze({ defaultSec: 0, perEngine: Object.freeze({}), unloadDefaultVoice: false });

/** A use of an engine; release it when the work is done (the idle time counts from then). */
export interface EngineLease {
  /** Milliseconds this acquisition waited for the engine to load again, its own load or one under way (0 when it was loaded). */
  readonly loadMs: number;
  release(): void;
}

/** Residency of one engine, as reported in NodeStatus. */
export interface ResidencyState {
  readonly loaded: boolean;
  /** Duration of the last load (start-up or reload), ms. */
  readonly lastLoadMs: number;
  /** Idle seconds before unloading; 0 = never (also for the kept default voice's engine). */
  readonly idleUnloadSec: number;
  /** Unloads so far. */
  readonly unloads: number;
  /** Loads again after an unload so far. */
  readonly reloads: number;
}

interface Entry {
  readonly engine: SynthesisEngine;
  readonly idleSec: number;
  loaded: boolean;
  users: number;
  lastUsedMs: number;
  lastLoadMs: number;
  unloads: number;
  reloads: number;
  /** Pending load or unload; the next one waits for it. */
  transition: Promise<void> | undefined;
}

/** Tracks use of the ready engines and unloads idle ones. */
export class EngineResidency {
  private readonly entries = new Map<string, Entry>();
  private readonly timer: NodeJS.Timeout | undefined;

  /**
   * `engines` are the ready engines with their start-up load time; `keepLoaded` names the engine of
   * the default voice (kept unless `settings.unloadDefaultVoice`).
   */
  constructor(
    engines: readonly { readonly engine: SynthesisEngine; readonly loadMs: number }[],
    settings: IdleUnloadSettings,
    keepLoaded: string | undefined,
    private readonly logger?: Logger,
  ) {
    const now = performance.now();
    for (const { engine, loadMs } of engines) {
      const configured = settings.perEngine[engine.name] ?? settings.defaultSec;
      const kept = engine.name === keepLoaded && !settings.unloadDefaultVoice;
      const idleSec = kept || engine.unload === undefined ? 0 : configured;
      this.entries.set(engine.name, { engine, idleSec, loaded: true, users: 0, lastUsedMs: now, lastLoadMs: loadMs, unloads: 0, reloads: 0, transition: undefined });
    }
    const idle = [...this.entries.values()].map((e) => e.idleSec).filter((s) => s > 0);
    if (idle.length > 0) {
      // Checked four times per shortest idle time: an engine unloads at most a quarter late.
      const everyMs = Math.max(100, Math.min(60_000, (Math.min(...idle) * 1000) / 4));
      this.timer = setInterval(() => this.sweep(), everyMs);
      this.timer.unref();
    }
  }

  /** Residency of `engine`; undefined for an engine that is not ready. */
  state(engine: string): ResidencyState | undefined {
    const e = this.entries.get(engine);
    return e && { loaded: e.loaded, lastLoadMs: e.lastLoadMs, idleUnloadSec: e.idleSec, unloads: e.unloads, reloads: e.reloads };
  }

  /** Marks `engine` in use, loading it again first when it was unloaded. */
  async acquire(engine: string): Promise<EngineLease> {
    const e = this.entries.get(engine);
    if (!e) return { loadMs: 0, release: () => undefined };
    e.users++;
    const started = performance.now();
    const ready = e.loaded && !e.transition;
    try {
      while (e.transition) await e.transition;
      if (!e.loaded) await this.reload(e);
    } catch (err) {
      e.users--;
      throw err;
    }
    let released = false;
    return {
      loadMs: ready ? 0 : performance.now() - started,
      release: () => {
        if (released) return;
        released = true;
        e.users--;
        e.lastUsedMs = performance.now();
      },
    };
  }

  /** Runs `fn` under a lease of `engine`. */
  async use<T>(engine: string, fn: () => Promise<T>): Promise<T> {
    const lease = await this.acquire(engine);
    try {
      return await fn();
    } finally {
      lease.release();
    }
  }

  /** Unloads every idle engine whose time has come; also called by the timer. */
  async sweep(now = performance.now()): Promise<void> {
    const due = [...this.entries.values()].filter((e) => e.idleSec > 0 && e.loaded && e.users === 0 && !e.transition && now - e.lastUsedMs >= e.idleSec * 1000);
    await Promise.all(due.map((e) => this.unload(e)));
  }

  /** Stops the idle timer (the engines are closed by the registry). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async unload(e: Entry): Promise<void> {
    const unload = e.engine.unload;
    if (!unload) return;
    const run = (async () => {
      const started = performance.now();
      try {
        await unload.call(e.engine);
        e.unloads++;
        this.logger?.info('engine unloaded after idle time', { engine: e.engine.name, idle_sec: e.idleSec, ms: Math.round(performance.now() - started) });
      } catch (err) {
        this.logger?.warn('engine unload failed', { engine: e.engine.name, err });
      } finally {
        // Loaded again on the next use whatever the unload left behind.
        e.loaded = false;
      }
    })();
    e.transition = run;
    try {
      await run;
    } finally {
      e.transition = undefined;
    }
  }

  private async reload(e: Entry): Promise<void> {
    const started = performance.now();
    const run = e.engine.load();
    e.transition = run.catch(() => undefined);
    try {
      await run;
    } catch (err) {
      this.logger?.error('engine failed to load again', { engine: e.engine.name, err });
      throw new TtsError('TTS_ENGINE_UNAVAILABLE', `Engine "${e.engine.name}" could not be loaded again; retry later.`, { retryAfterSec: 5, cause: err });
    } finally {
      e.transition = undefined;
    }
    e.loaded = true;
    e.reloads++;
    e.lastLoadMs = performance.now() - started;
    this.logger?.info('engine loaded again', { engine: e.engine.name, ms: Math.round(e.lastLoadMs) });
  }
}
