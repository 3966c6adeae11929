/**
 * The external load generator of the saturation and soak benches: Debian's `wrk` (installed by
 * `scripts/setup.sh --for-bench`) with a Lua script that gives each request the next API key in
 * rotation and prints wrk's own counters as one JSON line when it is done.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { LaunchedPlatform } from './platform.js';
import { r } from './support.js';

/** One load target: an operation and a body. */
export interface Target {
  readonly name: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/** Options of the wrk script. */
export interface WrkScriptOptions {
  /**
   * Count the answers by HTTP status (a Lua call per response) and report them as `statuses`.
   * @default false
   */
  readonly countStatuses?: boolean;
  /** Pause before each request on a connection, ms, read from BENCH_DELAY_MS (paces the load below saturation). @default false */
  readonly paced?: boolean;
}

/**
 * The wrk script: each request takes the next API key; `done` prints one JSON line (wrk's own
 * counters: requests, non-2xx/3xx answers, socket errors, latency percentiles in microseconds, and
 * with `countStatuses` the answers by status).
 */
export function wrkScript(options: WrkScriptOptions = {}): string {
  const counting = options.countStatuses === true;
  return `
local keys = {}
for k in string.gmatch(os.getenv("BENCH_KEYS"), "[^,]+") do keys[#keys + 1] = k end
local body = os.getenv("BENCH_BODY")
local path = os.getenv("BENCH_PATH")
local n = 0
${options.paced === true ? `local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
delay = function()
  return pause
end` : ''}
request = function()
  n = n + 1
  return wrk.format("POST", path, { ["content-type"] = "application/json", ["x-api-key"] = keys[(n % #keys) + 1] }, body)
end
${counting ? `local threads = {}
setup = function(thread)
  threads[#threads + 1] = thread
end
statuses = {}
response = function(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end` : ''}
done = function(summary, latency, requests)
  local e = summary.errors
  local counted = ""
  ${counting ? `local all = {}
  for _, t in ipairs(threads) do
    for status, count in pairs(t:get("statuses")) do all[status] = (all[status] or 0) + count end
  end
  local parts = {}
  for status, count in pairs(all) do parts[#parts + 1] = string.format('"%d":%d', status, count) end
  counted = ',"statuses":{' .. table.concat(parts, ",") .. '}'` : ''}
  io.write(string.format('WRK {"requests":%d,"duration_us":%d,"bytes":%d,"status_errors":%d,"socket_errors":%d,"timeouts":%d,"p50_us":%d,"p95_us":%d,"p99_us":%d,"max_us":%d%s}\\n',
    summary.requests, summary.duration, summary.bytes, e.status, e.connect + e.read + e.write, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max, counted))
end
`;
}

/** Writes the script to `file`; returns the path. */
export function writeWrkScript(file: string, options: WrkScriptOptions = {}): string {
  writeFileSync(file, wrkScript(options));
  return file;
}

/** One wrk run's figures. */
export interface Level {
  concurrency: number;
  req_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  requests: number;
  non_2xx: number;
  socket_errors: number;
  timeouts: number;
  load_avg_1m: number;
  /** Answers by HTTP status (scripts with `countStatuses`). */
  statuses?: Record<string, number>;
}

/** Throws when wrk is not installed. */
export function requireWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary is fatal.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('wrk is not installed: run `bash scripts/setup.sh --for-bench` first');
  }
}

/** Runs wrk (one thread, `concurrency` connections, `seconds`) against `target` with the script at `script`. */
export async function runWrk(p: LaunchedPlatform, target: Target, concurrency: number, seconds: number, script: string, env: Record<string, string> = {}): Promise<Level> {
  const child = spawn('wrk', ['-t1', `-c${concurrency}`, `-d${seconds}s`, '--timeout', '30s', '-s', script, p.url], {
    env: { ...process.env, BENCH_KEYS: p.apiKeys.join(','), BENCH_BODY: JSON.stringify(target.body), BENCH_PATH: target.path, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = out.split('\n').find((l) => l.startsWith('WRK '));
  if (code !== 0 || line === undefined) throw new Error(`wrk failed (${code}): ${out}`);
  const w = JSON.parse(line.slice(4)) as Record<string, number> & { statuses?: Record<string, number> };
  const ok = w['requests']! - w['status_errors']!;
  return {
    concurrency,
    req_per_s: r(ok / (w['duration_us']! / 1e6), 1),
    p50_ms: r(w['p50_us']! / 1000, 1),
    p95_ms: r(w['p95_us']! / 1000, 1),
    p99_ms: r(w['p99_us']! / 1000, 1),
    max_ms: r(w['max_us']! / 1000, 1),
    requests: w['requests']!,
    non_2xx: w['status_errors']!,
    socket_errors: w['socket_errors']!,
    timeouts: w['timeouts']!,
    load_avg_1m: r(loadavg()[0]!, 2),
    ...(w.statuses ? { statuses: w.statuses } : {}),
  };
}
