/**
 * The Redis Kv (REDIS_URL): state shared by every facade replica. The limiter is one Lua script per
 * call (a sorted set of allowed call times per key, timed by the Redis server clock), so replicas
 * with skewed clocks still agree and concurrent callers cannot overshoot the limit.
 */
import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '../logging/logger.js';
import { checkRule, decide, ttlMs, type Kv, type KvBackend, type RateLimitDecision, type RateLimiter, type RateLimitRule } from './kv.js';
import { createScriptedClient, type RedisClient } from './redis-scripts.js';

/** Options of `connectRedisKv`. */
export interface RedisKvOptions {
  readonly url: string;
  readonly prefix: string;
  /** Where connection errors are logged. @default a "kv" logger */
  readonly logger?: Logger;
  /** Milliseconds to wait for the first connection. @default 5000 */
  readonly connectTimeoutMs?: number;
}

function numbers(reply: unknown, length: number): number[] {
  if (!Array.isArray(reply) || reply.length !== length || !reply.every((x) => typeof x === 'number')) {
    throw new TypeError('Unexpected reply from the rate-limit script');
  }
  return reply as number[];
}

/** The Redis Kv. Use `connectRedisKv` to create one. */
export class RedisKv implements Kv {
  readonly backend: KvBackend;
  readonly rateLimiter: RateLimiter;
  private readonly memberTag = randomBytes(6).toString('base64url');
  private sequence = 0;

  constructor(
    private readonly client: RedisClient,
    readonly prefix: string,
  ) {
    this.backend = { kind: 'redis', client };
    this.rateLimiter = { consume: (key, rule) => this.consume(key, rule) };
  }

  async get(key: string): Promise<string | null> {
    const v = await this.client.get(this.full(key));
    return v === null ? null : String(v);
  }

  async setIfAbsent(key: string, value: string, ttlSec: number): Promise<boolean> {
    const reply = await this.client.set(this.full(key), value, { condition: 'NX', expiration: { type: 'PX', value: ttlMs(ttlSec) } });
    return reply === 'OK';
  }

  async del(key: string): Promise<boolean> {
    return (await this.client.del(this.full(key))) > 0;
  }

  async incrBy(key: string, by: number, ttlSec: number): Promise<number> {
    if (!Number.isSafeInteger(by)) throw new RangeError(`by must be an integer, got ${by}`);
    const reply = await this.client.incrWithTtl([this.full(key)], [String(by), String(ttlMs(ttlSec))]);
    if (typeof reply !== 'number') throw new TypeError('Unexpected reply from INCRBY');
    return reply;
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close();
  }

  private async consume(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    checkRule(rule);
    const member = `${this.memberTag}:${(this.sequence++).toString(36)}`;
    const reply = await this.client.rateLimitConsume([this.full(`rl:${key}`)], [String(rule.limit), String(Math.round(rule.windowSec * 1e6)), member]);
    const [allowed, count, now, oldest, newest] = numbers(reply, 5) as [number, number, number, number, number];
    return decide(rule, allowed === 1, count, now, oldest, newest);
  }

  private full(key: string): string {
    return `${this.prefix}:${key}`;
  }
}

/**
 * Connects to Redis and resolves once connected; rejects when the first connection fails (after
 * two quick retries). Once connected, lost connections are retried with backoff, and commands sent
 * while disconnected fail at once instead of queueing.
 */
export async function connectRedisKv(options: RedisKvOptions): Promise<RedisKv> {
  const logger = options.logger ?? createLogger('kv');
  let connected = false;
  let lastLogged = 0;
  const client: RedisClient = createScriptedClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5000,
      reconnectStrategy: (retries: number, cause: Error) => (connected ? Math.min(50 * 2 ** retries, 2000) : retries >= 2 ? cause : 100),
    },
  });
  client.on('error', (err: unknown) => {
    // A reconnect storm would log on every attempt; one line per 10 s is enough.
    const now = Date.now();
    if (connected && now - lastLogged > 10_000) {
      lastLogged = now;
      logger.warn('redis connection error', { err });
    }
  });
  await client.connect();
  connected = true;
  return new RedisKv(client, options.prefix);
}
