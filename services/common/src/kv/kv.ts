/**
 * The key-value interface shared by the Redis and the in-process implementations: a few atomic
 * operations with TTLs and a sliding-window rate limiter. Both implementations pass the same suite.
 */
import type { RedisClient } from './redis-scripts.js';

/** A rate-limit rule: at most `limit` calls in any window of `windowSec` seconds. */
export interface RateLimitRule {
  /** Calls allowed per window; an integer from 1 to 100000. */
  readonly limit: number;
  /** Window length in seconds (fractions allowed, at least 0.001). */
  readonly windowSec: number;
}

/** The outcome of one `consume`. */
export interface RateLimitDecision {
  /** True when the call was counted and may proceed. */
  readonly allowed: boolean;
  /** The rule's limit. */
  readonly limit: number;
  /** Calls left in the current window after this one (0 when refused). */
  readonly remaining: number;
  /** Unix time (seconds, rounded up) when the window is empty again, i.e. `remaining` is back to `limit`. */
  readonly resetUnix: number;
  /** Seconds (rounded up, at least 1) until a refused call may succeed; 0 when allowed. */
  readonly retryAfterSec: number;
  /** The rule's window in seconds. */
  readonly windowSec: number;
}

/**
 * A sliding-window-log limiter: a call is allowed when fewer than `limit` calls were allowed in the
 * last `windowSec` seconds; refused calls are not counted. Exact (never more than `limit` in any
 * window) and atomic across every process sharing the store.
 */
export interface RateLimiter {
  /** Counts one call against `key` under `rule` and reports the decision. */
  consume(key: string, rule: RateLimitRule): Promise<RateLimitDecision>;
}

/** What backs a Kv, for code that needs backend-specific features (the job queue, tests). */
export type KvBackend =
  | {
      readonly kind: 'redis';
      /** The connected client (commands only; duplicate it for blocking reads). */
      readonly client: RedisClient;
    }
  | { readonly kind: 'memory' };

/** The node-redis client type used here. */
export type { RedisClient } from './redis-scripts.js';

/**
 * Key-value operations under a key prefix. Keys passed in are relative: the store prepends
 * `${prefix}:`, so two Kvs with different prefixes never see each other's keys.
 */
export interface Kv {
  readonly prefix: string;
  readonly backend: KvBackend;
  /** The sliding-window rate limiter on this store. */
  readonly rateLimiter: RateLimiter;
  /** The value of `key`, or null when absent or expired. */
  get(key: string): Promise<string | null>;
  /**
   * Sets `key` to `value` for `ttlSec` seconds unless it exists; resolves to true when this call
   * set it. Atomic: of concurrent callers, exactly one wins.
   */
  setIfAbsent(key: string, value: string, ttlSec: number): Promise<boolean>;
  /** Deletes `key`; resolves to true when it existed. */
  del(key: string): Promise<boolean>;
  /**
   * Adds `by` to the integer at `key` (0 when absent) and resolves to the new value. A key created
   * by this call expires after `ttlSec` seconds; later increments keep the expiry.
   */
  incrBy(key: string, by: number, ttlSec: number): Promise<number>;
  /** Closes the connection (Redis) or drops the data (in-process). */
  close(): Promise<void>;
}

/** Validates a rule; throws RangeError on a programming error. */
export function checkRule(rule: RateLimitRule): void {
  if (!Number.isInteger(rule.limit) || rule.limit < 1 || rule.limit > 100_000) throw new RangeError(`limit must be an integer in 1..100000, got ${rule.limit}`);
  if (!Number.isFinite(rule.windowSec) || rule.windowSec < 0.001) throw new RangeError(`windowSec must be at least 0.001, got ${rule.windowSec}`);
}

/** Validates a TTL and returns it in whole milliseconds (at least 1). */
export function ttlMs(ttlSec: number): number {
  if (!Number.isFinite(ttlSec) || ttlSec <= 0) throw new RangeError(`ttlSec must be positive, got ${ttlSec}`);
  return Math.max(1, Math.ceil(ttlSec * 1000));
}

/**
 * Builds a decision from the window state (all times in microseconds): `count` calls in the window
 * after this one, the oldest and newest of them.
 */
export function decide(rule: RateLimitRule, allowed: boolean, count: number, nowUs: number, oldestUs: number, newestUs: number): RateLimitDecision {
  const windowUs = Math.round(rule.windowSec * 1e6);
  return {
    allowed,
    limit: rule.limit,
    remaining: Math.max(0, rule.limit - count),
    resetUnix: Math.ceil((count === 0 ? nowUs : newestUs + windowUs) / 1e6),
    retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((oldestUs + windowUs - nowUs) / 1e6)),
    windowSec: rule.windowSec,
  };
}
