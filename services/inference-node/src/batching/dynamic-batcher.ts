/**
 * A dynamic batcher in front of a model: it queues single requests, groups them into batches of
 * up to `maxBatchSize` (waiting at most `maxQueueDelayMs` for company), runs one batched call and
 * hands each caller its own result. The queue is bounded; cancelled requests leave it and never run.
 */
import { context, trace, type Context, type Link } from '@opentelemetry/api';
import { TtsError } from '@tts/common';
import { instruments, recordFailure, tracer } from '@tts/common/telemetry';
import { currentBatchObserver, type BatchObserver } from './batch-observer.js';

/** How a `DynamicBatcher` groups and bounds work. */
export interface DynamicBatcherOptions<I, O> {
  /** Largest batch handed to `run` (>= 1). */
  readonly maxBatchSize: number;
  /**
   * How long the oldest waiting request may wait for others before its batch runs anyway, in ms.
   * 0 runs as soon as a batch slot is free (requests submitted in the same tick still batch).
   * @default 0
   */
  readonly maxQueueDelayMs?: number;
  /** Requests waiting (not yet running) at most; a request beyond it is refused with TTS_NODE_OVERLOADED. */
  readonly maxQueue: number;
  /**
   * Batches running at once. While all slots are busy, requests accumulate and the next batch
   * takes as many as it can.
   * @default 1
   */
  readonly maxConcurrentBatches?: number;
  /** Runs one batch; the result at index i answers item i. */
  readonly run: (batch: readonly I[]) => Promise<readonly O[]>;
  /**
   * Requests batch together only when their keys are equal (e.g. same model and same scales).
   * @default every request has the same key
   */
  readonly batchKey?: (item: I) => string;
  /**
   * A size measure (e.g. input length). When more requests of one key wait than fit one batch, the
   * batch takes the oldest request and those whose measure is closest to it, so little padding is
   * wasted; the oldest request always goes first, so none starves.
   * @default none: the oldest requests, in order
   */
  readonly similarity?: (item: I) => number;
  /** Name in telemetry (the `tts.batcher` attribute of batch spans and of `tts.batch.size`). @default none */
  readonly name?: string;
}

/** Counters of a batcher since it was created. */
export interface DynamicBatcherStats {
  /** Requests waiting now. */
  readonly queued: number;
  /** Batches running now. */
  readonly runningBatches: number;
  /** Batches run so far. */
  readonly batches: number;
  /** Requests that ran (in any batch). */
  readonly items: number;
  /** Requests cancelled by their caller (while queued or running). */
  readonly cancelled: number;
  /** Requests refused because the queue was full. */
  readonly rejected: number;
  /** Moving average of a batch's run time, ms; 0 before the first batch. */
  readonly meanBatchMs: number;
}

interface Entry<I, O> {
  readonly item: I;
  readonly key: string;
  readonly enqueuedAt: number;
  readonly resolve: (value: O) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  state: 'queued' | 'running' | 'settled';
  /** The submitter's trace context (the batch span links to it) and batch observer. */
  readonly context: Context;
  readonly observer: BatchObserver | undefined;
}

/** Dynamic batcher for any batched model call; see the module comment. */
export class DynamicBatcher<I, O> {
  private readonly maxBatchSize: number;
  private readonly maxQueueDelayMs: number;
  private readonly maxQueue: number;
  private readonly maxConcurrentBatches: number;
  private readonly runBatch: (batch: readonly I[]) => Promise<readonly O[]>;
  private readonly batchKey: (item: I) => string;
  private readonly similarity: ((item: I) => number) | undefined;
  private readonly name: string | undefined;
  private readonly queue: Entry<I, O>[] = [];
  private readonly runningBatches = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = Infinity;
  private pumpScheduled = false;
  private closed = false;
  private counters = { batches: 0, items: 0, cancelled: 0, rejected: 0 };
  private meanBatchMs = 0;

  constructor(options: DynamicBatcherOptions<I, O>) {
    const int = (name: string, value: number, min: number): number => {
      if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
      return value;
    };
    this.maxBatchSize = int('maxBatchSize', options.maxBatchSize, 1);
    this.maxQueue = int('maxQueue', options.maxQueue, 1);
    this.maxConcurrentBatches = int('maxConcurrentBatches', options.maxConcurrentBatches ?? 1, 1);
    const delay = options.maxQueueDelayMs ?? 0;
    if (!Number.isFinite(delay) || delay < 0) throw new RangeError(`maxQueueDelayMs must be >= 0, got ${delay}`);
    this.maxQueueDelayMs = delay;
    this.runBatch = options.run;
    this.batchKey = options.batchKey ?? (() => '');
    this.similarity = options.similarity;
    this.name = options.name;
  }

  /**
   * Queues `item` and resolves with its result once its batch ran. Rejects with
   * TtsError('TTS_NODE_OVERLOADED', { retryAfterSec }) when the queue is full, with
   * TtsError('TTS_CANCELLED') as soon as `signal` aborts (a queued item is removed and never runs;
   * a running one's result is discarded), with TtsError('SERVICE_SHUTTING_DOWN') after `close()`,
   * and with the error of `run` when its batch fails.
   */
  submit(item: I, signal?: AbortSignal): Promise<O> {
    if (this.closed) return Promise.reject(new TtsError('SERVICE_SHUTTING_DOWN'));
    if (signal?.aborted === true) {
      this.counters.cancelled++;
      return Promise.reject(new TtsError('TTS_CANCELLED'));
    }
    if (this.queue.length >= this.maxQueue) {
      this.counters.rejected++;
      return Promise.reject(new TtsError('TTS_NODE_OVERLOADED', `The batch queue is full (${this.maxQueue} waiting).`, { retryAfterSec: this.retryAfterSec() }));
    }
    return new Promise<O>((resolve, reject) => {
      const entry: Entry<I, O> = {
        item, key: this.batchKey(item), enqueuedAt: performance.now(), resolve, reject, signal, onAbort: undefined, state: 'queued',
        context: context.active(), observer: currentBatchObserver(),
      };
      if (signal !== undefined) {
        entry.onAbort = () => this.cancel(entry);
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.queue.push(entry);
      this.schedulePump();
    });
  }

  /** Requests waiting now. */
  get queued(): number {
    return this.queue.length;
  }

  /** Counters since creation. */
  get stats(): DynamicBatcherStats {
    return { queued: this.queue.length, runningBatches: this.runningBatches.size, meanBatchMs: this.meanBatchMs, ...this.counters };
  }

  /**
   * Seconds a refused caller should wait: the time to drain the queue at the recent batch speed,
   * at least 1.
   */
  retryAfterSec(): number {
    const batchMs = this.meanBatchMs > 0 ? this.meanBatchMs : 1000;
    const batchesAhead = Math.ceil(this.queue.length / this.maxBatchSize) + this.runningBatches.size;
    return Math.max(1, Math.ceil((batchesAhead * batchMs) / this.maxConcurrentBatches / 1000));
  }

  /** Refuses new requests, rejects the waiting ones with SERVICE_SHUTTING_DOWN and waits for running batches. */
  async close(): Promise<void> {
    this.closed = true;
    this.clearTimer();
    for (const entry of this.queue.splice(0)) this.settle(entry, undefined, new TtsError('SERVICE_SHUTTING_DOWN'));
    await Promise.allSettled([...this.runningBatches]);
  }

  private cancel(entry: Entry<I, O>): void {
    if (entry.state === 'settled') return;
    if (entry.state === 'queued') {
      const index = this.queue.indexOf(entry);
      if (index >= 0) this.queue.splice(index, 1);
    }
    this.counters.cancelled++;
    this.settle(entry, undefined, new TtsError('TTS_CANCELLED'));
    this.schedulePump();
  }

  private settle(entry: Entry<I, O>, value: O | undefined, error?: unknown): void {
    if (entry.state === 'settled') return;
    entry.state = 'settled';
    if (entry.onAbort !== undefined) entry.signal?.removeEventListener('abort', entry.onAbort);
    if (error !== undefined) entry.reject(error);
    else entry.resolve(value as O);
  }

  private schedulePump(): void {
    if (this.pumpScheduled || this.closed) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Starts every batch that is due while batch slots are free; arms the timer for the next one. */
  private pump(): void {
    while (!this.closed && this.runningBatches.size < this.maxConcurrentBatches && this.queue.length > 0) {
      const batch = this.nextDueBatch();
      if (batch === null) return;
      this.start(batch);
    }
    if (this.queue.length === 0) this.clearTimer();
  }

  /** The batch to run now (removed from the queue), or null (after arming the timer) when none is due. */
  private nextDueBatch(): Entry<I, O>[] | null {
    const oldest = this.queue[0]!;
    const groups = new Map<string, Entry<I, O>[]>();
    for (const entry of this.queue) {
      let group = groups.get(entry.key);
      if (group === undefined) groups.set(entry.key, (group = []));
      group.push(entry);
    }
    const waited = performance.now() - oldest.enqueuedAt;
    const oldestGroup = groups.get(oldest.key)!;
    let group: Entry<I, O>[] | undefined;
    if (waited >= this.maxQueueDelayMs || oldestGroup.length >= this.maxBatchSize) group = oldestGroup;
    else group = [...groups.values()].find((g) => g.length >= this.maxBatchSize);
    if (group === undefined) {
      this.armTimer(this.maxQueueDelayMs - waited);
      return null;
    }
    const batch = this.select(group);
    const taken = new Set(batch);
    let write = 0;
    for (const entry of this.queue) if (!taken.has(entry)) this.queue[write++] = entry;
    this.queue.length = write;
    return batch;
  }

  /**
   * Up to maxBatchSize entries of one group (oldest first in the queue): the oldest, then either
   * the next oldest or, with `similarity`, the ones closest to the oldest.
   */
  private select(group: Entry<I, O>[]): Entry<I, O>[] {
    if (group.length <= this.maxBatchSize) return group;
    const similarity = this.similarity;
    if (similarity === undefined) return group.slice(0, this.maxBatchSize);
    const first = group[0]!;
    const anchor = similarity(first.item);
    const rest = group.slice(1).map((entry, age) => ({ entry, age, distance: Math.abs(similarity(entry.item) - anchor) }));
    rest.sort((a, b) => a.distance - b.distance || a.age - b.age);
    return [first, ...rest.slice(0, this.maxBatchSize - 1).map((r) => r.entry)];
  }

  private start(batch: Entry<I, O>[]): void {
    for (const entry of batch) entry.state = 'running';
    const started = performance.now();
    const done = this.execute(batch).finally(() => {
      const ms = performance.now() - started;
      this.meanBatchMs = this.meanBatchMs === 0 ? ms : 0.8 * this.meanBatchMs + 0.2 * ms;
      this.runningBatches.delete(done);
      this.schedulePump();
    });
    this.runningBatches.add(done);
  }

  private async execute(batch: Entry<I, O>[]): Promise<void> {
    this.counters.batches++;
    this.counters.items += batch.length;
    // One span per batch, from the oldest request's arrival (batch formation) to the end of its
    // run, a child of the oldest request's trace and linked to every request's span.
    const oldest = batch.reduce((a, b) => (b.enqueuedAt < a.enqueuedAt ? b : a));
    const links: Link[] = batch.flatMap((e) => {
      const span = trace.getSpan(e.context);
      return span === undefined ? [] : [{ context: span.spanContext() }];
    });
    const attributes = { 'tts.batch.size': batch.length, 'tts.batch.wait_ms': performance.now() - oldest.enqueuedAt, ...(this.name ? { 'tts.batcher': this.name } : {}) };
    const span = tracer().startSpan('tts.batch', { attributes, links, startTime: performance.timeOrigin + oldest.enqueuedAt }, oldest.context);
    span.addEvent('tts.batch.dispatched');
    instruments().batchSize.record(batch.length, this.name ? { 'tts.batcher': this.name } : {});
    for (const entry of batch) entry.observer?.(batch.length);
    try {
      const results = await context.with(trace.setSpan(oldest.context, span), () => this.runBatch(batch.map((e) => e.item)));
      if (results.length !== batch.length) throw new Error(`batch run returned ${results.length} results for ${batch.length} items`);
      batch.forEach((entry, i) => this.settle(entry, results[i]));
    } catch (error) {
      recordFailure(span, error);
      for (const entry of batch) this.settle(entry, undefined, error ?? new Error('batch run failed'));
    } finally {
      span.end();
    }
  }

  private armTimer(delayMs: number): void {
    const dueAt = performance.now() + Math.max(0, delayMs);
    if (this.timer !== undefined && this.timerDueAt <= dueAt + 0.5) return;
    this.clearTimer();
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerDueAt = Infinity;
      this.pump();
    }, Math.max(0, Math.ceil(delayMs)));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = Infinity;
  }
}
