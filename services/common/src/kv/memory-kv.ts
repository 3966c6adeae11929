/**
 * The in-process Kv (no REDIS_URL): the same operations and limiter semantics as Redis, for a single
 * process. Every operation runs synchronously inside one call, so it is atomic with respect to
 * other callers of this process. Expired entries are dropped on access and by a periodic sweep.
 */
import { checkRule, decide, ttlMs, type Kv, type KvBackend, type RateLimitDecision, type RateLimiter, type RateLimitRule } from './kv.js';

/** A clock in milliseconds since the epoch; monotonic by default. */
export type Clock = () => number;

const monotonicNow: Clock = () => performance.timeOrigin + performance.now();

interface Entry {
  value: string;
  expiresAt: number;
}

interface Window {
  /** Allowed call times in microseconds, ascending. */
  times: number[];
  windowUs: number;
}

const SWEEP_EVERY = 1024;

/** Options of `MemoryKv`. */
export interface MemoryKvOptions {
  readonly prefix: string;
  /** Time source (tests move it by hand). @default a monotonic wall clock */
  readonly now?: Clock;
}

/** The in-process Kv. */
export class MemoryKv implements Kv {
  readonly prefix: string;
  readonly backend: KvBackend = { kind: 'memory' };
  readonly rateLimiter: RateLimiter;
  private readonly now: Clock;
  private readonly entries = new Map<string, Entry>();
  private readonly windows = new Map<string, Window>();
  private operations = 0;

  constructor(options: MemoryKvOptions) {
    this.prefix = options.prefix;
    this.now = options.now ?? monotonicNow;
    this.rateLimiter = { consume: async (key, rule) => this.consume(key, rule) };
  }

  async get(key: string): Promise<string | null> {
    return this.live(this.full(key))?.value ?? null;
  }

  async setIfAbsent(key: string, value: string, ttlSec: number): Promise<boolean> {
    const ttl = ttlMs(ttlSec);
    this.maybeSweep();
    const k = this.full(key);
    if (this.live(k) !== undefined) return false;
    this.entries.set(k, { value, expiresAt: this.now() + ttl });
    return true;
  }

  async del(key: string): Promise<boolean> {
    const k = this.full(key);
    const existed = this.live(k) !== undefined;
    this.entries.delete(k);
    return existed;
  }

  async incrBy(key: string, by: number, ttlSec: number): Promise<number> {
    if (!Number.isSafeInteger(by)) throw new RangeError(`by must be an integer, got ${by}`);
    const ttl = ttlMs(ttlSec);
    this.maybeSweep();
    const k = this.full(key);
    const entry = this.live(k);
    if (entry === undefined) {
      this.entries.set(k, { value: String(by), expiresAt: this.now() + ttl });
      return by;
    }
    if (!/^-?\d+$/.test(entry.value)) throw new TypeError('value is not an integer');
    const next = Number(entry.value) + by;
    entry.value = String(next);
    return next;
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.windows.clear();
  }

  private consume(key: string, rule: RateLimitRule): RateLimitDecision {
    checkRule(rule);
    this.maybeSweep();
    const k = this.full(`rl:${key}`);
    const nowUs = Math.floor(this.now() * 1000);
    const windowUs = Math.round(rule.windowSec * 1e6);
    let w = this.windows.get(k);
    if (w === undefined) {
      w = { times: [], windowUs };
      this.windows.set(k, w);
    }
    w.windowUs = windowUs;
    // Same boundary as the Redis script: a call exactly windowUs old has left the window.
    let drop = 0;
    while (drop < w.times.length && w.times[drop]! <= nowUs - windowUs) drop++;
    if (drop > 0) w.times.splice(0, drop);
    const allowed = w.times.length < rule.limit;
    if (allowed) w.times.push(nowUs);
    const count = w.times.length;
    const oldest = w.times[0] ?? nowUs;
    const newest = w.times[count - 1] ?? nowUs;
    if (count === 0) this.windows.delete(k);
    return decide(rule, allowed, count, nowUs, oldest, newest);
  }

  private full(key: string): string {
    return `${this.prefix}:${key}`;
  }

  private live(k: string): Entry | undefined {
    const entry = this.entries.get(k);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(k);
      return undefined;
    }
    return entry;
  }

  private maybeSweep(): void {
    if (++this.operations % SWEEP_EVERY !== 0) return;
    const now = this.now();
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
    const nowUs = Math.floor(now * 1000);
    for (const [k, w] of this.windows) if ((w.times[w.times.length - 1] ?? 0) <= nowUs - w.windowUs) this.windows.delete(k);
  }
}
