/**
 * Buffers SLI rows off the response path and writes them in batches: when `maxBatch` rows wait or
 * `flushMs` after the first one. Writes in flight are tracked so shutdown waits for them. A failed
 * write puts its rows back (up to `maxBuffered`; beyond that the oldest are dropped and counted),
 * so a storage hiccup costs no SLIs and an outage costs bounded memory.
 */
import type { SliRow, SloRepository } from '../../../services/common/src/data/index.js';
import type { Logger } from '../../../services/common/src/logging/logger.js';

/** Options of the recorder. */
export interface SliRecorderOptions {
  /** @default 1000 */
  readonly flushMs?: number;
  /** @default 500 */
  readonly maxBatch?: number;
  /** @default 50000 */
  readonly maxBuffered?: number;
}

/** Batching writer of SLI rows. */
export class SliRecorder {
  private buffer: SliRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly pending = new Set<Promise<void>>();
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;
  private droppedRows = 0;

  constructor(private readonly repository: SloRepository, private readonly logger: Logger, options: SliRecorderOptions = {}) {
    this.flushMs = options.flushMs ?? 1000;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxBuffered = options.maxBuffered ?? 50_000;
  }

  /** Rows dropped because storage stayed unreachable with the buffer full. */
  get dropped(): number {
    return this.droppedRows;
  }

  /** Queues one row. */
  record(row: SliRow): void {
    this.buffer.push(row);
    if (this.buffer.length > this.maxBuffered) {
      this.droppedRows += this.buffer.length - this.maxBuffered;
      this.buffer.splice(0, this.buffer.length - this.maxBuffered);
    }
    if (this.buffer.length >= this.maxBatch) this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Starts writing what is buffered now (batches of maxBatch). */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.buffer.length > 0) {
      const rows = this.buffer.splice(0, this.maxBatch);
      const write: Promise<void> = this.repository
        .insertMany(rows)
        .catch((err: unknown) => {
          this.logger.error('SLI write failed; rows kept for the next flush', { rows: rows.length, err });
          this.buffer.unshift(...rows.slice(0, Math.max(0, this.maxBuffered - this.buffer.length)));
        })
        .finally(() => this.pending.delete(write));
      this.pending.add(write);
    }
  }

  /** Writes everything buffered and waits for every write in flight (shutdown, tests). One retry of failed rows. */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all([...this.pending]);
    if (this.buffer.length > 0) {
      this.flush();
      await Promise.all([...this.pending]);
    }
  }
}
