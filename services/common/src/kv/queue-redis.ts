/**
 * The Redis Streams work queue (REDIS_URL): one stream per priority level, all read through one
 * consumer group. Entries survive restarts of every consumer; an entry is pending (leased to the
 * consumer that read it) until XACK, then deleted (XDEL) so streams do not grow. Each operation is
 * one Lua script, so a strict-priority read over several streams costs one round trip and happens
 * atomically (`unacked`, a scan for the scheduler's reconciliation, pages with XRANGE). Stream keys share a hash tag, so the scripts also run on Redis Cluster.
 */
import type { RedisClient } from './redis-scripts.js';

/** The queue's scripts in REDIS_SCRIPTS. */
type QueueScript = 'queueTake' | 'queuePendingOf' | 'queueClaimStale' | 'queueTouch' | 'queueAck' | 'queueWaiting' | 'queueStats';
import { clampPriority, type QueueEntry, type QueueStats, type WorkQueue } from './queue.js';

/** Stream entries read per XRANGE by `unacked`. */
const UNACKED_PAGE = 1000;








function isError(err: unknown, code: string): boolean {
  return err instanceof Error && err.message.includes(code);
}

/** Stream ids are unique per stream only: queue entry ids are "<priority>:<stream id>". */
function streamId(entry: QueueEntry): string {
  return entry.id.slice(entry.id.indexOf(':') + 1);
}

function entries(reply: unknown): QueueEntry[] {
  if (!Array.isArray(reply) || reply.length % 3 !== 0) throw new TypeError('Unexpected reply from a queue script');
  const out: QueueEntry[] = [];
  for (let i = 0; i < reply.length; i += 3) {
    const [p, id, item] = [reply[i], reply[i + 1], reply[i + 2]];
    if (typeof p !== 'string' || typeof id !== 'string' || typeof item !== 'string') throw new TypeError('Unexpected entry from a queue script');
    out.push({ id: `${p}:${id}`, item, priority: Number(p) });
  }
  return out;
}

/** The Redis Streams work queue. Use `RedisWorkQueue.open`. */
export class RedisWorkQueue implements WorkQueue {
  readonly backend = 'redis' as const;
  private readonly keys: string[];

  private constructor(
    private readonly client: RedisClient,
    base: string,
    readonly priorities: number,
    private readonly group: string,
  ) {
    // "{name}" is the hash tag: every level of one queue lives in the same cluster slot.
    const colon = base.lastIndexOf(':');
    const tagged = colon >= 0 ? `${base.slice(0, colon)}:{${base.slice(colon + 1)}}` : `{${base}}`;
    this.keys = Array.from({ length: priorities }, (_, i) => `${tagged}:p${i}`);
  }

  /** Creates the streams and the consumer group when missing. `base` is "<prefix>:<name>". */
  static async open(client: RedisClient, base: string, priorities: number, group: string): Promise<RedisWorkQueue> {
    const q = new RedisWorkQueue(client, base, priorities, group);
    await q.ensureGroups();
    return q;
  }

  async add(item: string, priority: number): Promise<QueueEntry> {
    const p = clampPriority(priority, this.priorities);
    const id = await this.client.xAdd(this.keys[p]!, '*', { item });
    return { id: `${p}:${id}`, item, priority: p };
  }

  async take(consumer: string, count: number, maxPriority = this.priorities - 1): Promise<QueueEntry[]> {
    if (count <= 0 || maxPriority < 0) return [];
    return entries(await this.run('queueTake', [this.group, consumer, String(Math.floor(count))], this.keys.slice(0, maxPriority + 1)));
  }

  async pendingOf(consumer: string): Promise<QueueEntry[]> {
    return entries(await this.run('queuePendingOf', [this.group, consumer]));
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<QueueEntry[]> {
    if (count <= 0) return [];
    return entries(await this.run('queueClaimStale', [this.group, consumer, String(Math.max(0, Math.floor(minIdleMs))), String(Math.floor(count))]));
  }

  async touch(consumer: string, list: readonly QueueEntry[]): Promise<void> {
    if (list.length === 0) return;
    await this.run('queueTouch', [this.group, consumer, ...list.flatMap((e) => [String(e.priority), streamId(e)])]);
  }

  async ack(list: readonly QueueEntry[]): Promise<void> {
    if (list.length === 0) return;
    await this.run('queueAck', [this.group, ...list.flatMap((e) => [String(e.priority), streamId(e)])]);
  }

  async waiting(limit = 1_000_000): Promise<QueueEntry[]> {
    return entries(await this.run('queueWaiting', [this.group, String(limit)]));
  }

  async unacked(): Promise<QueueEntry[]> {
    // Acknowledged entries are deleted from their stream: what a stream holds is unacknowledged.
    const out: QueueEntry[] = [];
    for (const [p, key] of this.keys.entries()) {
      let start = '-';
      for (;;) {
        const page = await this.client.xRange(key, start, '+', { COUNT: UNACKED_PAGE });
        for (const e of page) out.push({ id: `${p}:${e.id}`, item: String(e.message['item'] ?? ''), priority: p });
        if (page.length < UNACKED_PAGE) break;
        start = `(${page.at(-1)!.id}`;
      }
    }
    return out;
  }

  onReconnect(listener: () => void): () => void {
    // The client is connected when the queue opens: every later "ready" is a reconnection.
    this.client.on('ready', listener);
    return () => void this.client.off('ready', listener);
  }

  async stats(): Promise<QueueStats> {
    const reply = await this.run('queueStats', [this.group]);
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') throw new TypeError('Unexpected reply from the stats script');
    return { waiting: reply[0] - reply[1], pending: reply[1] };
  }

  private async ensureGroups(): Promise<void> {
    for (const key of this.keys) {
      try {
        await this.client.xGroupCreate(key, this.group, '0', { MKSTREAM: true });
      } catch (err) {
        if (!isError(err, 'BUSYGROUP')) throw err;
      }
    }
  }

  /** Runs a queue script; recreates streams and group once when they vanished (NOGROUP, e.g. a flushed Redis). */
  private async run(name: QueueScript, args: string[], keys: string[] = this.keys): Promise<unknown> {
    try {
      return await this.client[name](keys, args);
    } catch (err) {
      if (!isError(err, 'NOGROUP') && !isError(err, 'no such key')) throw err;
      await this.ensureGroups();
      return this.client[name](keys, args);
    }
  }
}
