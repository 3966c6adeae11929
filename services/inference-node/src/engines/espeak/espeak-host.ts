/**
 * The process-wide espeak-ng worker. libespeak-ng is not thread-safe and keeps global state, so the
 * engine and every phonemizer share ONE worker thread (per library file) that serializes all calls.
 * A child-process pool would isolate native crashes, but espeak synthesizes a sentence in a few
 * milliseconds, so one in-process thread costs less than the IPC and keeps memory low.
 */
import { TtsError } from '@tts/common';
import { siblingModule, WorkerPool } from '../workers/worker-pool.js';
import type { EspeakRequest, EspeakResponse, EspeakWorkerData } from './espeak-worker.js';

/** A reference to the shared espeak worker; release it when done. */
export interface EspeakHost {
  /** Runs one request on the espeak thread. */
  request<K extends EspeakRequest['kind']>(req: Extract<EspeakRequest, { kind: K }>, signal?: AbortSignal): Promise<Extract<EspeakResponse, { kind: K }>>;
  /** The shared worker pool (one thread) behind this reference. */
  readonly pool: WorkerPool<EspeakRequest, EspeakResponse>;
  /** Drops this reference; the worker stops with the last one. Idempotent. */
  release(): Promise<void>;
}

interface Shared {
  refs: number;
  readonly pool: WorkerPool<EspeakRequest, EspeakResponse>;
  readonly started: Promise<void>;
}

const shared = new Map<string, Shared>();

/** Takes a reference to the espeak worker of `library`, starting it on first use. */
export async function acquireEspeakHost(library: string): Promise<EspeakHost> {
  let entry = shared.get(library);
  if (!entry) {
    const data: EspeakWorkerData = { library };
    const pool = new WorkerPool<EspeakRequest, EspeakResponse>({ name: 'espeak', script: siblingModule(import.meta.url, 'espeak-worker'), size: 1, workerData: data });
    entry = { refs: 0, pool, started: pool.start() };
    shared.set(library, entry);
  }
  const sharedWorker = entry;
  sharedWorker.refs += 1;
  try {
    await sharedWorker.started;
  } catch (err) {
    sharedWorker.refs -= 1;
    if (shared.get(library) === sharedWorker) shared.delete(library);
    throw err;
  }
  let released = false;
  return {
    async request(req, signal) {
      if (released) throw new TtsError('TTS_ENGINE_UNAVAILABLE', 'espeak: the engine was closed.');
      const res = await sharedWorker.pool.run(req, { signal });
      if (res.kind !== req.kind) throw new TtsError('TTS_ENGINE_FAILED', `espeak: expected a ${req.kind} answer, got ${res.kind}`);
      return res as Extract<EspeakResponse, { kind: typeof req.kind }>;
    },
    pool: sharedWorker.pool,
    async release() {
      if (released) return;
      released = true;
      sharedWorker.refs -= 1;
      if (sharedWorker.refs > 0) return;
      if (shared.get(library) === sharedWorker) shared.delete(library);
      await sharedWorker.pool.close();
    },
  };
}
