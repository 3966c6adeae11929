/**
 * A durable work queue with priorities and consumer groups: Redis Streams when the Kv is Redis
 * (XADD / XREADGROUP / XACK, stale entries taken over with XAUTOCLAIM), an in-process queue with
 * the same semantics otherwise. Both pass the same suite (queue.test.ts).
 *
 * Delivery is at least once: an entry taken by a consumer stays pending (leased to it) until it is
 * acknowledged; the consumer keeps the lease fresh with `touch`; when a consumer dies its entries
 * go idle and another consumer takes them over with `claimStale`. Consumers must therefore make
 * processing idempotent (the scheduler checks the job's state in the database before running it).
 * `openWorkQueue` (queue-open.ts) picks the implementation.
 */
/** One entry as delivered. */
export interface QueueEntry {
  /** Unique within the queue (on Redis "<priority>:<stream entry id>"). */
  readonly id: string;
  /** The item as added. */
  readonly item: string;
  /** 0 = most urgent. */
  readonly priority: number;
}

/** Sizes of the queue. */
export interface QueueStats {
  /** Entries not yet delivered to any consumer. */
  readonly waiting: number;
  /** Entries delivered and not yet acknowledged. */
  readonly pending: number;
}

/** A priority work queue shared by the consumers of one group. */
export interface WorkQueue {
  readonly backend: 'redis' | 'memory';
  /** Number of priority levels; priorities are 0 (most urgent) to `priorities - 1`. */
  readonly priorities: number;
  /** Appends `item` at `priority` (clamped to the levels). */
  add(item: string, priority: number): Promise<QueueEntry>;
  /**
   * Delivers up to `count` waiting entries to `consumer`: every entry of priority 0 before any of
   * priority 1, and so on; oldest first within a priority; only priorities up to `maxPriority` when
   * given. Delivered entries are pending until acked.
   */
  take(consumer: string, count: number, maxPriority?: number): Promise<QueueEntry[]>;
  /** Entries pending for `consumer` (delivered to it earlier, e.g. before it restarted), oldest first. */
  pendingOf(consumer: string): Promise<QueueEntry[]>;
  /** Transfers to `consumer` up to `count` entries pending (for any consumer) idle for at least `minIdleMs`. */
  claimStale(consumer: string, minIdleMs: number, count: number): Promise<QueueEntry[]>;
  /** Resets the idle time of entries pending for `consumer` (keeps their lease). */
  touch(consumer: string, entries: readonly QueueEntry[]): Promise<void>;
  /** Acknowledges and removes entries (pending or not). */
  ack(entries: readonly QueueEntry[]): Promise<void>;
  /** Entries not yet delivered, in delivery order (at most `limit`). */
  waiting(limit?: number): Promise<QueueEntry[]>;
  /**
   * Every entry not yet acknowledged, waiting or pending for any consumer, by priority then age:
   * what the queue still holds (the scheduler compares it with the waiting jobs).
   */
  unacked(): Promise<QueueEntry[]>;
  /**
   * Calls `listener` each time the backend is reachable again after a lost connection (Redis:
   * every reconnection, after which the queue may have lost its entries; never in-process).
   * Returns a function removing the listener.
   */
  onReconnect(listener: () => void): () => void;
  /** Current sizes. */
  stats(): Promise<QueueStats>;
}

/** Clamps a priority to 0..levels-1 (non-integers rounded). */
export function clampPriority(priority: number, levels: number): number {
  if (!Number.isFinite(priority)) return levels - 1;
  return Math.min(levels - 1, Math.max(0, Math.round(priority)));
}
