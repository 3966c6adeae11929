/**
 * Test support (not for production code): the two Kv backends every kv suite runs against, each
 * test on its own key prefix, cleaned afterwards.
 * - `memory`: the in-process store.
 * - `redis`: the real server at TEST_REDIS_URL (default redis://127.0.0.1:6379). An unreachable
 *   server makes the test fail, never skip.
 */
import { randomBytes } from 'node:crypto';
import { openKv } from './index.js';
import type { Kv } from './kv.js';

/** The URL of the real test server. */
export const TEST_REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** What a test needs from its context: a hook run when the test ends. */
export interface TestHooks {
  after(fn: () => Promise<void>): void;
}

/** One backend of the kv suites. */
export interface TestKvBackend {
  readonly name: 'memory' | 'redis';
  /**
   * A store on `prefix` (a fresh one by default). When the test ends every key under the prefix
   * is deleted and the store closed. For Redis, opening the same prefix again gives a second
   * client connection on the same data, as a second replica would have; the in-process store has
   * no second view (it would be a second process), so `shared` is false for it.
   */
  open(t: TestHooks, prefix?: string): Promise<Kv>;
  /** True when two `open`s with one prefix see the same data. */
  readonly shared: boolean;
}

/** A unique key prefix for a test. */
export function freshPrefix(): string {
  return `test:${Date.now().toString(36)}:${randomBytes(5).toString('hex')}`;
}

async function clearPrefix(kv: Kv): Promise<void> {
  if (kv.backend.kind !== 'redis') return;
  const keys: string[] = [];
  for await (const batch of kv.backend.client.scanIterator({ MATCH: `${kv.prefix}:*`, COUNT: 500 })) keys.push(...batch);
  if (keys.length > 0) await kv.backend.client.unlink(keys);
}

/** Both backends, in-process first. */
export function kvBackends(): TestKvBackend[] {
  return [
    {
      name: 'memory',
      shared: false,
      async open(t, prefix = freshPrefix()) {
        const kv = await openKv({ prefix });
        t.after(() => kv.close());
        return kv;
      },
    },
    {
      name: 'redis',
      shared: true,
      async open(t, prefix = freshPrefix()) {
        const kv = await openKv({ url: TEST_REDIS_URL, prefix });
        t.after(async () => {
          try {
            await clearPrefix(kv);
          } finally {
            await kv.close();
          }
        });
        return kv;
      },
    },
  ];
}
