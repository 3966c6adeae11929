/**
 * A pool of worker threads that each run one request at a time (see `worker-runtime.ts` for the
 * worker side). Results come back by transfer, not copy. A worker that dies (uncaught error, exit)
 * fails its in-flight request with `TTS_ENGINE_FAILED` and is replaced.
 *
 * A worker is never terminated while it may be inside a native (koffi) call: V8 cannot interrupt
 * native code, and koffi aborts the whole process when the call returns into a terminating thread.
 * Busy workers are asked to exit after their current request instead.
 */
import { Worker } from 'node:worker_threads';
import { TtsError } from '@tts/common/errors';
import { SlotPool, type PoolSlot } from './slot-pool.js';
import type { ControlMessage, WorkerMessage } from './worker-protocol.js';

/** Options of a {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /** Engine name, used in error messages and thread names. */
  readonly name: string;
  /** Worker entry module; see {@link siblingModule}. */
  readonly script: URL;
  /** Number of worker threads. */
  readonly size: number;
  /** Structured-clonable data handed to each worker's init function. */
  readonly workerData?: unknown;
  /** Milliseconds a worker may take to initialize. @default 30000 */
  readonly startTimeoutMs?: number;
}

/** Per-call options of {@link WorkerPool.run}. */
export interface WorkerRunOptions {
  /** Cancels the request; a running one is discarded when the worker answers. */
  readonly signal?: AbortSignal | undefined;
  /** Buffers to transfer (not copy) to the worker with the request. */
  readonly transfer?: readonly ArrayBuffer[];
}

/**
 * URL of the module `name` next to the module at `importMetaUrl`, with the caller's own extension:
 * `.ts` when running from sources (tsx), `.js` when compiled.
 */
export function siblingModule(importMetaUrl: string, name: string): URL {
  const ext = importMetaUrl.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${ext}`, importMetaUrl);
}

/**
 * Starts a worker on `script`. From sources a worker does not inherit the tsx loader on Node 20,
 * so it first registers tsx, then imports the entry module.
 */
function spawnWorker(script: URL, name: string, workerData: unknown): Worker {
  if (!script.pathname.endsWith('.ts')) return new Worker(script, { workerData, name });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(script.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData, name });
}

/** One worker thread of a {@link WorkerPool}. */
export class WorkerSlot<Req, Res> implements PoolSlot {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Res) => void; reject: (e: unknown) => void }>();
  private dead = false;
  private started = false;
  private exited = false;

  private constructor(
    private readonly worker: Worker,
    private readonly name: string,
  ) {}

  /** Starts a worker and resolves once its init function has finished. */
  static start<Req, Res>(options: WorkerPoolOptions, onDeath: (cause: unknown) => void): Promise<WorkerSlot<Req, Res>> {
    const worker = spawnWorker(options.script, `${options.name}-worker`, options.workerData);
    const slot = new WorkerSlot<Req, Res>(worker, options.name);
    return new Promise((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => fail(new Error(`worker did not start within ${options.startTimeoutMs ?? 30_000} ms`)), options.startTimeoutMs ?? 30_000);
      const fail = (cause: unknown): void => {
        clearTimeout(timer);
        if (!ready) {
          ready = true;
          void slot.dispose();
          reject(new TtsError('TTS_ENGINE_UNAVAILABLE', `${options.name}: worker failed to start: ${describe(cause)}`, { cause }));
          return;
        }
        if (slot.die(cause)) onDeath(cause);
      };
      worker.on('message', (msg: WorkerMessage<Res>) => {
        if (slot.dead) return;
        if (msg.type === 'ready') {
          clearTimeout(timer);
          ready = true;
          slot.started = true;
          worker.unref();
          resolve(slot);
        } else if (msg.type === 'init-error') {
          slot.started = true; // init has returned: no native call is running, terminating is safe
          fail(new Error(msg.message));
        } else {
          slot.settle(msg);
        }
      });
      worker.on('error', (err) => fail(err));
      worker.on('exit', (code) => {
        slot.exited = true;
        fail(new Error(`worker exited with code ${code}`));
      });
    });
  }

  /** Sends one request and resolves with the worker's answer. */
  call(request: Req, transfer: readonly ArrayBuffer[] = []): Promise<Res> {
    return this.send((id) => ({ type: 'request', id, request }), transfer);
  }

  /**
   * Stops the worker: terminated at once when idle, otherwise asked to exit after its current
   * request (see the module comment), and terminated after `graceMs` if it has not exited by then.
   */
  async dispose(graceMs = 30_000): Promise<void> {
    if (this.exited) return;
    const busy = this.pending.size > 0 || !this.started;
    this.die(new Error('worker disposed'));
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    if (!busy) {
      await this.worker.terminate().catch(() => undefined);
      return;
    }
    this.worker.postMessage({ type: 'exit' } satisfies ControlMessage<Req>);
    const timer = setTimeout(() => void this.worker.terminate().catch(() => undefined), graceMs);
    await exited;
    clearTimeout(timer);
  }

  private send(message: (id: number) => ControlMessage<Req>, transfer: readonly ArrayBuffer[] = []): Promise<Res> {
    if (this.dead) return Promise.reject(new TtsError('TTS_ENGINE_FAILED', `${this.name}: the engine worker is gone.`));
    const id = this.nextId++;
    return new Promise<Res>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage(message(id), [...transfer]);
    });
  }

  /** Marks the slot dead and rejects pending requests; false when it already was. */
  private die(cause: unknown): boolean {
    if (this.dead) return false;
    this.dead = true;
    for (const p of this.pending.values()) {
      p.reject(new TtsError('TTS_ENGINE_FAILED', `${this.name}: the engine worker died while synthesizing.`, { cause }));
    }
    this.pending.clear();
    return true;
  }

  private settle(msg: Extract<WorkerMessage<Res>, { type: 'result' | 'error' }>): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (this.pending.size === 0) this.worker.unref();
    if (msg.type === 'result') p.resolve(msg.result);
    else p.reject(new TtsError(msg.code ?? 'TTS_ENGINE_FAILED', msg.message));
  }
}

/** A pool of worker threads running one request each at a time, with a FIFO queue. */
export class WorkerPool<Req, Res> {
  private readonly pool: SlotPool<WorkerSlot<Req, Res>>;

  constructor(options: WorkerPoolOptions) {
    this.pool = new SlotPool({
      name: options.name,
      size: options.size,
      create: (onDeath) => WorkerSlot.start<Req, Res>(options, onDeath),
    });
  }

  /** Number of worker threads. */
  get size(): number {
    return this.pool.size;
  }

  /** Workers started to replace dead ones. */
  get replacements(): number {
    return this.pool.replacements;
  }

  /** Starts every worker; rejects when one fails to initialize. */
  start(): Promise<void> {
    return this.pool.start();
  }

  /** Runs one request on the next free worker. */
  run(request: Req, options: WorkerRunOptions = {}): Promise<Res> {
    return this.pool.run((slot) => slot.call(request, options.transfer), { signal: options.signal });
  }

  /** Stops every worker (busy ones after their current request). */
  close(): Promise<void> {
    return this.pool.close();
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
