/**
 * The Redis Streams work queue (REDIS_URL): one stream per priority level, all read through one
 * consumer group. Entries survive restarts of every consumer; an entry is pending (leased to the
 * consumer that read it) until XACK, then deleted (XDEL) so streams do not grow. Each operation is
 * one Lua script, so a strict-priority read over several streams costs one round trip and happens
 * atomically. Stream keys share a hash tag, so the scripts also run on Redis Cluster.
 */
import type { RedisClient } from './kv.js';
import { clampPriority, type QueueEntry, type QueueStats, type WorkQueue } from './queue.js';

// KEYS: streams by priority. ARGV: group, consumer, count. Returns flat {priority, id, item}*.
const TAKE = `
local need = tonumber(ARGV[3])
local out = {}
for i, key in ipairs(KEYS) do
  if need <= 0 then break end
  local r = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', need, 'STREAMS', key, '>')
  if r then
    for _, e in ipairs(r[1][2]) do
      local item = ''
      local f = e[2]
      for j = 1, #f, 2 do if f[j] == 'item' then item = f[j + 1] end end
      table.insert(out, tostring(i - 1)); table.insert(out, e[1]); table.insert(out, item)
      need = need - 1
    end
  end
end
return out
`;

// KEYS: streams. ARGV: group, consumer. The consumer's own pending entries; entries deleted from
// the stream meanwhile are acknowledged and left out.
const PENDING_OF = `
local out = {}
for i, key in ipairs(KEYS) do
  local last = '0'
  while true do
    local r = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', 500, 'STREAMS', key, last)
    if not r or #r[1][2] == 0 then break end
    for _, e in ipairs(r[1][2]) do
      last = e[1]
      if e[2] then
        local item = ''
        for j = 1, #e[2], 2 do if e[2][j] == 'item' then item = e[2][j + 1] end end
        table.insert(out, tostring(i - 1)); table.insert(out, e[1]); table.insert(out, item)
      else
        redis.call('XACK', key, ARGV[1], e[1])
      end
    end
  end
end
return out
`;

// KEYS: streams. ARGV: group, consumer, min idle ms, count.
const CLAIM_STALE = `
local need = tonumber(ARGV[4])
local out = {}
for i, key in ipairs(KEYS) do
  local cursor = '0-0'
  repeat
    if need <= 0 then break end
    local r = redis.call('XAUTOCLAIM', key, ARGV[1], ARGV[2], ARGV[3], cursor, 'COUNT', need)
    cursor = r[1]
    for _, e in ipairs(r[2]) do
      if e and e[2] then
        local item = ''
        for j = 1, #e[2], 2 do if e[2][j] == 'item' then item = e[2][j + 1] end end
        table.insert(out, tostring(i - 1)); table.insert(out, e[1]); table.insert(out, item)
        need = need - 1
      end
    end
  until cursor == '0-0'
end
return out
`;

// KEYS: streams. ARGV: group, consumer, then {priority, id}*. Resets the idle time of entries the
// consumer still holds (an entry another consumer took over is left alone).
const TOUCH = `
for n = 3, #ARGV, 2 do
  local key = KEYS[tonumber(ARGV[n]) + 1]
  local p = redis.call('XPENDING', key, ARGV[1], ARGV[n + 1], ARGV[n + 1], 1)
  if p[1] and p[1][2] == ARGV[2] then
    redis.call('XCLAIM', key, ARGV[1], ARGV[2], 0, ARGV[n + 1], 'JUSTID')
  end
end
return 0
`;

// KEYS: streams. ARGV: group, then {priority, id}*.
const ACK = `
for n = 2, #ARGV, 2 do
  local key = KEYS[tonumber(ARGV[n]) + 1]
  redis.call('XACK', key, ARGV[1], ARGV[n + 1])
  redis.call('XDEL', key, ARGV[n + 1])
end
return 0
`;

// KEYS: streams. ARGV: group, limit. Entries after the group's last delivered id, by priority.
const WAITING = `
local need = tonumber(ARGV[2])
local out = {}
for i, key in ipairs(KEYS) do
  if need <= 0 then break end
  local last = '0-0'
  for _, g in ipairs(redis.call('XINFO', 'GROUPS', key)) do
    local name, id = nil, nil
    for j = 1, #g, 2 do
      if g[j] == 'name' then name = g[j + 1] end
      if g[j] == 'last-delivered-id' then id = g[j + 1] end
    end
    if name == ARGV[1] then last = id end
  end
  for _, e in ipairs(redis.call('XRANGE', key, '(' .. last, '+', 'COUNT', need)) do
    local item = ''
    for j = 1, #e[2], 2 do if e[2][j] == 'item' then item = e[2][j + 1] end end
    table.insert(out, tostring(i - 1)); table.insert(out, e[1]); table.insert(out, item)
    need = need - 1
  end
end
return out
`;

// KEYS: streams. ARGV: group. Returns {entries in streams, pending}.
const STATS = `
local total, pending = 0, 0
for _, key in ipairs(KEYS) do
  total = total + redis.call('XLEN', key)
  pending = pending + redis.call('XPENDING', key, ARGV[1])[1]
end
return {total, pending}
`;

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
  private readonly shas = new Map<string, string>();

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
    return entries(await this.run(TAKE, [this.group, consumer, String(Math.floor(count))], this.keys.slice(0, maxPriority + 1)));
  }

  async pendingOf(consumer: string): Promise<QueueEntry[]> {
    return entries(await this.run(PENDING_OF, [this.group, consumer]));
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<QueueEntry[]> {
    if (count <= 0) return [];
    return entries(await this.run(CLAIM_STALE, [this.group, consumer, String(Math.max(0, Math.floor(minIdleMs))), String(Math.floor(count))]));
  }

  async touch(consumer: string, list: readonly QueueEntry[]): Promise<void> {
    if (list.length === 0) return;
    await this.run(TOUCH, [this.group, consumer, ...list.flatMap((e) => [String(e.priority), streamId(e)])]);
  }

  async ack(list: readonly QueueEntry[]): Promise<void> {
    if (list.length === 0) return;
    await this.run(ACK, [this.group, ...list.flatMap((e) => [String(e.priority), streamId(e)])]);
  }

  async waiting(limit = 1_000_000): Promise<QueueEntry[]> {
    return entries(await this.run(WAITING, [this.group, String(limit)]));
  }

  async stats(): Promise<QueueStats> {
    const reply = await this.run(STATS, [this.group]);
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

  /** Runs a script; recreates streams and group once when they vanished (NOGROUP, e.g. a flushed Redis). */
  private async run(source: string, args: string[], keys: string[] = this.keys): Promise<unknown> {
    try {
      return await this.script(source, args, keys);
    } catch (err) {
      if (!isError(err, 'NOGROUP') && !isError(err, 'no such key')) throw err;
      await this.ensureGroups();
      return this.script(source, args, keys);
    }
  }

  /** Runs a script by its SHA1, loading it on first use and again after a server restart. */
  private async script(source: string, args: string[], keys: string[]): Promise<unknown> {
    let sha = this.shas.get(source);
    if (sha === undefined) {
      sha = await this.client.scriptLoad(source);
      this.shas.set(source, sha);
    }
    try {
      return await this.client.evalSha(sha, { keys, arguments: args });
    } catch (err) {
      if (!isError(err, 'NOSCRIPT')) throw err;
      return this.client.eval(source, { keys, arguments: args });
    }
  }
}
