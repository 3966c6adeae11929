/**
 * A fixed-size pool of long-lived execution slots (worker threads, server processes) in front of
 * one FIFO queue. Each slot runs one task at a time. A slot that dies is replaced: its in-flight
 * task rejects with `TTS_ENGINE_FAILED` (retryable) and a new slot starts, so the next task succeeds.
 */
import { TtsError } from '@tts/common/errors';

/** One execution slot of a pool. */
export interface PoolSlot {
  /** Stops the slot and frees its resources. Never rejects; safe to call more than once. */
  dispose(): Promise<void>;
}

/** Options of a {@link SlotPool}. */
export interface SlotPoolOptions<S extends PoolSlot> {
  /** Engine name, used in error messages. */
  readonly name: string;
  /** Number of slots. */
  readonly size: number;
  /**
   * Starts one slot. The slot calls `onDeath` (at most once) when it dies on its own after it
   * started; it must also reject its in-flight task then.
   */
  readonly create: (onDeath: (cause: unknown) => void) => Promise<S>;
  /** First delay before restarting a slot whose start failed; doubles per failure up to 10 s. @default 250 */
  readonly restartBackoffMs?: number;
  /** Consecutive start failures after which queued tasks fail fast while no slot is alive. @default 3 */
  readonly maxStartFailures?: number;
}

/** Per-call options of {@link SlotPool.run}. */
export interface RunOptions {
  /** Cancels the task: a queued task is dropped, a running one is discarded when it ends. */
  readonly signal?: AbortSignal | undefined;
}

interface Job<S> {
  readonly task: (slot: S) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  settled: boolean;
  detach: () => void;
}

interface Live<S> {
  readonly slot: S;
  busy: boolean;
  dead: boolean;
  job: Job<S> | null;
}

const MAX_BACKOFF_MS = 10_000;

/** A pool of slots with a FIFO queue, cancellation and automatic replacement of dead slots. */
export class SlotPool<S extends PoolSlot> {
  private readonly entries: (Live<S> | null)[];
  private readonly queue: Job<S>[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private started = false;
  private closed = false;
  private startFailures = 0;
  private lastStartError: unknown = undefined;
  private replaced = 0;

  constructor(private readonly options: SlotPoolOptions<S>) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new RangeError(`${options.name}: pool size must be a positive integer`);
    this.entries = Array.from({ length: options.size }, () => null);
  }

  /** Number of slots. */
  get size(): number {
    return this.options.size;
  }

  /** Slots started to replace dead ones since the pool started. */
  get replacements(): number {
    return this.replaced;
  }

  /** Slots currently alive (for diagnostics and tests). */
  liveSlots(): S[] {
    return this.entries.flatMap((e) => (e && !e.dead ? [e.slot] : []));
  }

  /** Slots currently running a task. */
  busySlots(): S[] {
    return this.entries.flatMap((e) => (e && !e.dead && e.busy ? [e.slot] : []));
  }

  /** Starts every slot; rejects (and stops those that started) when any fails to start. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const results = await Promise.allSettled(
      this.entries.map(async (_, i) => {
        const slot = await this.options.create((cause) => this.onDeath(i, cause));
        this.entries[i] = { slot, busy: false, dead: false, job: null };
      }),
    );
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure || this.closed) {
      await this.close();
      throw failure ? failure.reason : new TtsError('TTS_ENGINE_UNAVAILABLE', `${this.options.name}: the engine was closed while starting.`);
    }
    this.pump();
  }

  /** Runs `task` on the next free slot, in FIFO order. */
  run<T>(task: (slot: S) => Promise<T>, options: RunOptions = {}): Promise<T> {
    const { signal } = options;
    if (this.closed || !this.started) {
      return Promise.reject(new TtsError('TTS_ENGINE_UNAVAILABLE', `${this.options.name}: the engine is not loaded.`, { retryAfterSec: 5 }));
    }
    if (signal?.aborted) return Promise.reject(cancelled(this.options.name));
    if (this.failingFast()) return Promise.reject(this.startFailure());
    return new Promise<T>((resolve, reject) => {
      const job: Job<S> = {
        task,
        resolve: resolve as (value: unknown) => void,
        reject,
        signal,
        settled: false,
        detach: () => undefined,
      };
      if (signal) {
        const onAbort = (): void => {
          const i = this.queue.indexOf(job);
          if (i >= 0) this.queue.splice(i, 1);
          settle(job, () => job.reject(cancelled(this.options.name)));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        job.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** Stops every slot. Queued and running tasks reject with `TTS_ENGINE_UNAVAILABLE`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const closedError = (): TtsError => new TtsError('TTS_ENGINE_UNAVAILABLE', `${this.options.name}: the engine was closed.`);
    for (const job of this.queue.splice(0)) settle(job, () => job.reject(closedError()));
    const disposals: Promise<void>[] = [];
    this.entries.forEach((e, i) => {
      if (!e) return;
      e.dead = true;
      const job = e.job;
      if (job) settle(job, () => job.reject(closedError()));
      disposals.push(e.slot.dispose());
      this.entries[i] = null;
    });
    await Promise.all(disposals);
  }

  private pump(): void {
    if (this.closed) return;
    for (;;) {
      const entry = this.entries.find((e): e is Live<S> => e !== null && !e.dead && !e.busy);
      const job = entry ? this.queue.shift() : undefined;
      if (!entry || !job) break;
      this.dispatch(entry, job);
    }
    if (this.failingFast()) {
      for (const job of this.queue.splice(0)) settle(job, () => job.reject(this.startFailure()));
    }
  }

  private dispatch(entry: Live<S>, job: Job<S>): void {
    entry.busy = true;
    entry.job = job;
    let outcome: Promise<unknown>;
    try {
      outcome = job.task(entry.slot);
    } catch (err) {
      outcome = Promise.reject(err);
    }
    outcome.then(
      (value) => settle(job, () => job.resolve(value)),
      (err: unknown) => settle(job, () => job.reject(err)),
    ).finally(() => {
      if (entry.job === job) entry.job = null;
      entry.busy = false;
      this.pump();
    });
  }

  private onDeath(index: number, cause: unknown): void {
    const entry = this.entries[index];
    if (!entry || entry.dead) return;
    entry.dead = true;
    const job = entry.job;
    if (job) {
      settle(job, () => job.reject(new TtsError('TTS_ENGINE_FAILED', `${this.options.name}: the engine worker died while synthesizing.`, { cause })));
    }
    void entry.slot.dispose();
    if (this.closed) return;
    this.entries[index] = null;
    this.replaced += 1;
    this.restart(index);
  }

  private restart(index: number): void {
    if (this.closed) return;
    this.options.create((cause) => this.onDeath(index, cause)).then(
      (slot) => {
        if (this.closed) {
          void slot.dispose();
          return;
        }
        this.startFailures = 0;
        this.entries[index] = { slot, busy: false, dead: false, job: null };
        this.pump();
      },
      (err: unknown) => {
        this.startFailures += 1;
        this.lastStartError = err;
        this.pump();
        const base = this.options.restartBackoffMs ?? 250;
        const delay = Math.min(MAX_BACKOFF_MS, base * 2 ** (this.startFailures - 1));
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.restart(index);
        }, delay);
        this.timers.add(timer);
      },
    );
  }

  private failingFast(): boolean {
    return this.startFailures >= (this.options.maxStartFailures ?? 3) && this.liveSlots().length === 0;
  }

  private startFailure(): TtsError {
    const detail = this.lastStartError instanceof Error ? this.lastStartError.message : String(this.lastStartError);
    return new TtsError('TTS_ENGINE_FAILED', `${this.options.name}: the engine workers keep failing to restart (${detail}).`, {
      cause: this.lastStartError,
      retryAfterSec: 10,
    });
  }
}

function settle<S>(job: Job<S>, action: () => void): void {
  if (job.settled) return;
  job.settled = true;
  job.detach();
  action();
}

function cancelled(name: string): TtsError {
  return new TtsError('TTS_CANCELLED', `${name}: the request was cancelled.`);
}
