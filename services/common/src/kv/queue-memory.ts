/**
 * The in-process work queue (no REDIS_URL): the Redis Streams semantics of `WorkQueue` for one
 * process. Entries live in memory only; a restarted process rebuilds its queue from the database
 * (the scheduler re-adds every waiting job at start).
 */
import { clampPriority, type QueueEntry, type QueueStats, type WorkQueue } from './queue.js';

interface Pending {
  entry: QueueEntry;
  consumer: string;
  /** Last delivery or touch, ms. */
  at: number;
}

/** The in-process work queue. */
export class MemoryWorkQueue implements WorkQueue {
  readonly backend = 'memory' as const;
  private readonly levels: QueueEntry[][];
  private readonly pending = new Map<string, Pending>();
  private sequence = 0;

  constructor(
    readonly priorities: number,
    private readonly now: () => number = Date.now,
  ) {
    this.levels = Array.from({ length: priorities }, () => []);
  }

  async add(item: string, priority: number): Promise<QueueEntry> {
    const p = clampPriority(priority, this.priorities);
    // Same shape as a stream id; the sequence keeps ids unique and increasing.
    const entry: QueueEntry = { id: `${this.now()}-${this.sequence++}`, item, priority: p };
    this.levels[p]!.push(entry);
    return entry;
  }

  async take(consumer: string, count: number, maxPriority = this.priorities - 1): Promise<QueueEntry[]> {
    const out: QueueEntry[] = [];
    const at = this.now();
    for (const level of this.levels.slice(0, Math.max(0, maxPriority + 1))) {
      while (out.length < count && level.length > 0) {
        const entry = level.shift()!;
        this.pending.set(entry.id, { entry, consumer, at });
        out.push(entry);
      }
    }
    return out;
  }

  async pendingOf(consumer: string): Promise<QueueEntry[]> {
    return [...this.pending.values()].filter((p) => p.consumer === consumer).map((p) => p.entry).sort(byId);
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<QueueEntry[]> {
    const now = this.now();
    const out: QueueEntry[] = [];
    for (const p of [...this.pending.values()].sort((a, b) => byId(a.entry, b.entry))) {
      if (out.length >= count) break;
      if (now - p.at < minIdleMs) continue;
      p.consumer = consumer;
      p.at = now;
      out.push(p.entry);
    }
    return out;
  }

  async touch(consumer: string, entries: readonly QueueEntry[]): Promise<void> {
    const now = this.now();
    for (const e of entries) {
      const p = this.pending.get(e.id);
      if (p && p.consumer === consumer) p.at = now;
    }
  }

  async ack(entries: readonly QueueEntry[]): Promise<void> {
    for (const e of entries) {
      if (this.pending.delete(e.id)) continue;
      const level = this.levels[e.priority];
      const i = level?.findIndex((x) => x.id === e.id) ?? -1;
      if (i >= 0) level!.splice(i, 1);
    }
  }

  async waiting(limit = Number.MAX_SAFE_INTEGER): Promise<QueueEntry[]> {
    return this.levels.flat().slice(0, limit);
  }

  async unacked(): Promise<QueueEntry[]> {
    const pending = [...this.pending.values()].map((p) => p.entry);
    return this.levels.map((level, p) => [...pending.filter((e) => e.priority === p).sort(byId), ...level]).flat();
  }

  onReconnect(): () => void {
    return () => undefined; // in process: never disconnected
  }

  async stats(): Promise<QueueStats> {
    return { waiting: this.levels.reduce((n, l) => n + l.length, 0), pending: this.pending.size };
  }
}

function byId(a: QueueEntry, b: QueueEntry): number {
  const [am, as] = a.id.split('-').map(Number) as [number, number];
  const [bm, bs] = b.id.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
}
