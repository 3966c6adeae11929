/**
 * Every Lua script the platform runs on Redis, defined once with node-redis `defineScript` and
 * registered on the client (`createScriptedClient`): the client runs each by its SHA1 and loads it
 * again after a server restart (NOSCRIPT). Each takes `(keys, args)`; keys are declared as keys, so
 * the scripts also route on Redis Cluster.
 */
import { createClient, defineScript, type CommandParser, type RedisClientOptions } from 'redis';

/** A script over `keys` with string `args`, answering Redis's raw reply. */
function script(source: string) {
  return defineScript({
    SCRIPT: source,
    parseCommand(parser: CommandParser, keys: readonly string[], args: readonly string[]) {
      parser.push(String(keys.length));
      parser.pushKeys([...keys]);
      parser.push(...args);
    },
    transformReply: (reply: unknown) => reply,
  });
}

// KEYS[1] window key; ARGV: limit, window in microseconds, unique member.
// Returns {allowed (0/1), calls in window, now, oldest, newest} (times in microseconds).
const rateLimitConsume = script(`
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window_us)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, math.ceil(window_us / 1000))
  count = count + 1
  allowed = 1
end
local oldest = now
local newest = now
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
  newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
end
return {allowed, count, now, oldest, newest}
`);

// KEYS[1] counter; ARGV: increment, TTL in ms (set only when the key is created).
const incrWithTtl = script(`
local existed = redis.call('EXISTS', KEYS[1])
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if existed == 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return v
`);

// KEYS: streams by priority. ARGV: group, consumer, count. Returns flat {priority, id, item}*.
const queueTake = script(`
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
`);

// KEYS: streams. ARGV: group, consumer. The consumer's own pending entries; entries deleted from
// the stream meanwhile are acknowledged and left out.
const queuePendingOf = script(`
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
`);

// KEYS: streams. ARGV: group, consumer, min idle ms, count.
const queueClaimStale = script(`
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
`);

// KEYS: streams. ARGV: group, consumer, then {priority, id}*. Resets the idle time of entries the
// consumer still holds (an entry another consumer took over is left alone).
const queueTouch = script(`
for n = 3, #ARGV, 2 do
  local key = KEYS[tonumber(ARGV[n]) + 1]
  local p = redis.call('XPENDING', key, ARGV[1], ARGV[n + 1], ARGV[n + 1], 1)
  if p[1] and p[1][2] == ARGV[2] then
    redis.call('XCLAIM', key, ARGV[1], ARGV[2], 0, ARGV[n + 1], 'JUSTID')
  end
end
return 0
`);

// KEYS: streams. ARGV: group, then {priority, id}*.
const queueAck = script(`
for n = 2, #ARGV, 2 do
  local key = KEYS[tonumber(ARGV[n]) + 1]
  redis.call('XACK', key, ARGV[1], ARGV[n + 1])
  redis.call('XDEL', key, ARGV[n + 1])
end
return 0
`);

// KEYS: streams. ARGV: group, limit. Entries after the group's last delivered id, by priority.
const queueWaiting = script(`
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
`);

// KEYS: streams. ARGV: group. Returns {entries in streams, pending}.
const queueStats = script(`
local total, pending = 0, 0
for _, key in ipairs(KEYS) do
  total = total + redis.call('XLEN', key)
  pending = pending + redis.call('XPENDING', key, ARGV[1])[1]
end
return {total, pending}
`);

/** The scripts, by the name the client offers them under (e.g. `client.rateLimitConsume(keys, args)`). */
export const REDIS_SCRIPTS = { rateLimitConsume, incrWithTtl, queueTake, queuePendingOf, queueClaimStale, queueTouch, queueAck, queueWaiting, queueStats };

/** A Redis client with {@link REDIS_SCRIPTS} registered. */
export function createScriptedClient(options: Omit<RedisClientOptions, 'scripts'>) {
  return createClient({ ...options, scripts: REDIS_SCRIPTS });
}

/** The platform's Redis client. */
export type RedisClient = ReturnType<typeof createScriptedClient>;
