/**
 * Shared fast state: Redis when REDIS_URL is set (shared by every facade replica), otherwise an
 * in-process implementation of the same interface. Today: a sliding-window rate limiter and a few
 * atomic key-value operations with TTLs (challenge replay protection, counters). The job queue of
 * the next issue sits beside them, choosing its implementation from `kv.backend`.
 */
import type { Logger } from '../logging/logger.js';
import type { Kv } from './kv.js';
import { MemoryKv } from './memory-kv.js';

export { checkRule, type Kv, type KvBackend, type RateLimitDecision, type RateLimiter, type RateLimitRule, type RedisClient } from './kv.js';
export { MemoryKv, type Clock, type MemoryKvOptions } from './memory-kv.js';
export type { RedisKv } from './redis-kv.js';

/** Options of `openKv`. */
export interface OpenKvOptions {
  /** Redis URL (REDIS_URL). When undefined or empty, the in-process store is used. */
  readonly url?: string | undefined;
  /** Prepended (with ":") to every key, e.g. "tts" in production or a per-test prefix. */
  readonly prefix: string;
  /** Where Redis connection errors are logged. @default a "kv" logger */
  readonly logger?: Logger;
}

/**
 * Opens the store: Redis when `url` is set (resolving once connected, rejecting when the server is
 * unreachable), otherwise the in-process store. The Redis client library loads only then: a process
 * without Redis never holds its few hundred modules (bench/README.md, `memory`).
 */
export async function openKv(options: OpenKvOptions): Promise<Kv> {
  if (options.prefix === '' || /\s/.test(options.prefix)) throw new RangeError('prefix must be non-empty and without white space');
  if (options.url === undefined || options.url === '') return new MemoryKv({ prefix: options.prefix });
  const { connectRedisKv } = await import('./redis-kv.js');
  return connectRedisKv({ url: options.url, prefix: options.prefix, ...(options.logger ? { logger: options.logger } : {}) });
}

// The work queue (Redis Streams or in-process) of the asynchronous jobs.
export { clampPriority, type QueueEntry, type QueueStats, type WorkQueue } from './queue.js';
export { openWorkQueue, type WorkQueueOptions } from './queue-open.js';
export { MemoryWorkQueue } from './queue-memory.js';
export type { RedisWorkQueue } from './queue-redis.js';
