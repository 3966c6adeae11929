/**
 * Write-behind for append-only records (usage events, audits, SLI rows): rows are buffered off the
 * response path and written in batches, one write at a time, when `maxBatch` rows wait or
 * `flushMs` after the first one. A failed write puts its rows back at the head of the buffer (up
 * to `maxBuffered`; beyond that the oldest are dropped and counted), so a storage hiccup loses
 * nothing and an outage costs bounded memory. `drain()` writes everything (shutdown, tests).
 *
 * Writes are serialized, so `exclusive(fn)` can run a read that must not overlap a write: inside
 * it, every row is either committed or still in the buffer (quota figures rely on that).
 */
import type { Logger } from '@tts/common';

/** Options of a batch writer. */
export interface BatchWriterOptions<T> {
  /** What the rows are, for log lines ("usage events"). */
  readonly name: string;
  /** Writes one batch (one statement or transaction). */
  readonly write: (rows: T[]) => Promise<void>;
  readonly logger: Logger;
  /** Longest a row waits in the buffer, ms. @default 200 */
  readonly flushMs?: number;
  /** Rows per write. @default 500 */
  readonly maxBatch?: number;
  /** Rows kept while storage is failing. @default 50000 */
  readonly maxBuffered?: number;
}

/** A buffered, batching, serialized writer. */
export class BatchWriter<T> {
  /** Rows not yet written; a write takes its rows out only when it starts. */
  private buffer: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The last write or exclusive section; the next one starts after it. */
  private tail: Promise<void> = Promise.resolve();
  private flushQueued = false;
  private droppedRows = 0;
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;

  constructor(private readonly options: BatchWriterOptions<T>) {
    this.flushMs = options.flushMs ?? 200;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxBuffered = options.maxBuffered ?? 50_000;
  }

  /** Rows dropped because storage stayed unreachable with the buffer full. */
  get dropped(): number {
    return this.droppedRows;
  }

  /** Rows waiting and rows dropped so far (for metrics). */
  backlog(): { buffered: number; dropped: number } {
    return { buffered: this.buffer.length, dropped: this.droppedRows };
  }

  /** Rows not yet written. Inside `exclusive`, every other row is committed. */
  buffered(): readonly T[] {
    return this.buffer;
  }

  /** Queues one row; never waits. */
  record(row: T): void {
    this.buffer.push(row);
    this.trim();
    if (this.buffer.length >= this.maxBatch) this.flush();
    else this.schedule();
  }

  /** Writes everything buffered, in batches of `maxBatch`, after the writes already queued. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.flushQueued || this.buffer.length === 0) return;
    this.flushQueued = true;
    this.tail = this.tail.then(async () => {
      this.flushQueued = false;
      while (this.buffer.length > 0) {
        const rows = this.buffer.splice(0, this.maxBatch);
        try {
          await this.options.write(rows);
        } catch (err) {
          this.options.logger.error(`${this.options.name} write failed; rows kept for the next flush`, { rows: rows.length, err });
          this.buffer.unshift(...rows);
          this.trim();
          this.schedule();
          return;
        }
      }
    });
  }

  /** Runs `fn` when no write is in flight; no write starts until it settles. */
  exclusive<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.tail.then(fn);
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Writes everything buffered and waits for every write; failed rows get one more try. */
  async drain(): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      this.flush();
      await this.tail;
      if (this.buffer.length === 0) return;
    }
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  private trim(): void {
    if (this.buffer.length <= this.maxBuffered) return;
    const excess = this.buffer.length - this.maxBuffered;
    this.droppedRows += excess;
    this.buffer.splice(0, excess);
  }
}
