/** Opens a work queue on the Kv's backend (see queue.ts for the semantics). */
import type { Kv } from './kv.js';
import type { WorkQueue } from './queue.js';
import { MemoryWorkQueue } from './queue-memory.js';

/** Options of `openWorkQueue`. */
export interface WorkQueueOptions {
  /** Queue name, under the Kv's prefix (e.g. "jobs"). */
  readonly name: string;
  /** Priority levels. @default 4 */
  readonly priorities?: number;
  /** Consumer group. @default "workers" */
  readonly group?: string;
}

/** Opens the queue on the Kv's backend: Redis Streams on Redis, the in-process queue otherwise. */
export async function openWorkQueue(kv: Kv, options: WorkQueueOptions): Promise<WorkQueue> {
  const priorities = options.priorities ?? 4;
  if (!Number.isInteger(priorities) || priorities < 1 || priorities > 16) throw new RangeError(`priorities must be 1..16, got ${priorities}`);
  if (!/^[\w.-]+$/.test(options.name)) throw new RangeError(`Invalid queue name "${options.name}"`);
  const group = options.group ?? 'workers';
  if (kv.backend.kind === 'redis') {
    const { RedisWorkQueue } = await import('./queue-redis.js');
    return RedisWorkQueue.open(kv.backend.client, `${kv.prefix}:${options.name}`, priorities, group);
  }
  return new MemoryWorkQueue(priorities);
}

