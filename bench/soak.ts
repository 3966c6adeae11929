/**
 * Soak (`npm run bench soak`; issue 16, item 8): the one-machine platform as a user starts it (the
 * launcher: scheduler, one node, facade; embedded database and queue) under 70 % of its measured
 * capacity for BENCH_SOAK_MIN minutes (default 30), on the loopback, with the saturation bench's
 * load generator (wrk, bench/wrk.ts): "Hello world." with flite:slt through `POST /api/tts` (wav),
 * requests rotating over 64 API keys. The capacity is wrk's rate at BENCH_SOAK_CONNECTIONS
 * connections (default 8) over BENCH_SOAK_CAPACITY_SEC seconds (default 15). The soak then runs in
 * segments of BENCH_SOAK_SAMPLE_SEC seconds (default 30) on the same connections, each request
 * after a pause that paces the rate to 70 % of capacity (BENCH_SOAK_SHARE; the pause is corrected
 * after every segment from the rate it reached); after each segment it samples the PSS and RSS of
 * the platform's process tree and its open file descriptors (sockets, pipes, anonymous inodes,
 * files: bench/process-tree.ts), and counts the answers by status. Reports whether memory and
 * descriptors are flat (the mean of the last third of the samples against the first third: memory
 * within 5 % or 25 MB, descriptors within 10) and every answer other than 200 and the documented
 * 429 and 503. Writes bench/results/soak.json; exits 1 when a check fails.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchPlatform, post } from './platform.js';
import { treeFds, treeMemory } from './process-tree.js';
import { r } from './support.js';
import { requireWrk, runWrk, writeWrkScript, type Level, type Target } from './wrk.js';

const MINUTES = Number(process.env['BENCH_SOAK_MIN'] ?? 30);
const SHARE = Number(process.env['BENCH_SOAK_SHARE'] ?? 0.7);
const CONNECTIONS = Number(process.env['BENCH_SOAK_CONNECTIONS'] ?? 8);
const CAPACITY_SEC = Number(process.env['BENCH_SOAK_CAPACITY_SEC'] ?? 15);
const SAMPLE_SEC = Number(process.env['BENCH_SOAK_SAMPLE_SEC'] ?? 30);
const KEYS = 64;
/** Answers the platform documents under load: its rate limits and quotas (429), and overload (503). */
const DOCUMENTED = new Set(['200', '429', '503']);
const TARGET: Target = { name: 'api/tts wav', path: '/api/tts', body: { text: 'Hello world.', voice: 'flite:slt', format: 'wav' } };

/** One sample, taken after a segment of load. */
interface Sample {
  readonly minute: number;
  readonly req_per_s: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly pause_ms: number;
  readonly statuses: Record<string, number>;
  readonly socket_errors: number;
  readonly timeouts: number;
  readonly pss_mb: number;
  readonly rss_mb: number;
  readonly processes: number;
  readonly fds: ReturnType<typeof treeFds>;
  readonly load_avg_1m: number;
}

/** Mean of the first and of the last third of `values`, and whether the growth stays within `allowed`. */
function trend(values: readonly number[], allowed: (first: number) => number): { first_third: number; last_third: number; growth: number; flat: boolean } {
  const third = Math.max(1, Math.floor(values.length / 3));
  const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const first = mean(values.slice(0, third));
  const last = mean(values.slice(-third));
  return { first_third: r(first, 1), last_third: r(last, 1), growth: r(last - first, 1), flat: last - first <= allowed(first) };
}

requireWrk();
const workDir = mkdtempSync(join(tmpdir(), 'tts-soak-'));
const script = writeWrkScript(join(workDir, 'soak.lua'), { countStatuses: true, paced: true });
const startedAt = new Date().toISOString();
const loadAtStart = loadavg().map((x) => r(x, 2));
const platform = await launchPlatform({}, KEYS);
let failed = false;
try {
  const first = await post(platform, TARGET.path, TARGET.body);
  if (first.status !== 200) throw new Error(`the target answers ${first.status}`);
  await runWrk(platform, TARGET, CONNECTIONS, 3, script); // warm-up, not reported
  const capacity = await runWrk(platform, TARGET, CONNECTIONS, CAPACITY_SEC, script);
  const target = SHARE * capacity.req_per_s;
  console.log(`capacity: ${capacity.req_per_s} req/s at ${CONNECTIONS} connections (p50 ${capacity.p50_ms} ms); soak at ${r(target, 1)} req/s for ${MINUTES} min`);
  const baseline = { ...treeMemory(platform.pid), fds: treeFds(platform.pid) };
  console.log(`baseline: ${baseline.pss_mb} MB PSS, ${baseline.fds.total} descriptors (${baseline.fds.sockets} sockets)`);
  // Each connection sends one request per (latency + pause): the pause that gives the target rate.
  let pause = Math.max(0, (CONNECTIONS * 1000) / target - capacity.p50_ms);
  const samples: Sample[] = [];
  const segments = Math.max(1, Math.round((MINUTES * 60) / SAMPLE_SEC));
  const t0 = performance.now();
  for (let i = 0; i < segments; i++) {
    const level: Level = await runWrk(platform, TARGET, CONNECTIONS, SAMPLE_SEC, script, { BENCH_DELAY_MS: String(Math.round(pause)) });
    const memory = treeMemory(platform.pid);
    const sample: Sample = {
      minute: r((performance.now() - t0) / 60_000, 2),
      req_per_s: level.req_per_s,
      p50_ms: level.p50_ms,
      p99_ms: level.p99_ms,
      pause_ms: Math.round(pause),
      statuses: level.statuses ?? {},
      socket_errors: level.socket_errors,
      timeouts: level.timeouts,
      pss_mb: memory.pss_mb,
      rss_mb: memory.rss_mb,
      processes: memory.processes,
      fds: treeFds(platform.pid),
      load_avg_1m: level.load_avg_1m,
    };
    samples.push(sample);
    console.log(`${sample.minute.toFixed(1).padStart(5)} min: ${sample.req_per_s} req/s (pause ${sample.pause_ms} ms), p50 ${sample.p50_ms} ms, p99 ${sample.p99_ms} ms, ${JSON.stringify(sample.statuses)}, socket errors ${sample.socket_errors}; ${sample.pss_mb} MB PSS, ${sample.rss_mb} MB RSS, ${sample.processes} processes, ${sample.fds.total} descriptors (${sample.fds.sockets} sockets, ${sample.fds.pipes} pipes) (load ${sample.load_avg_1m})`);
    // The rate each connection reached tells the time a request takes now; pace the next segment by it.
    if (level.req_per_s > 0) {
      const perRequestMs = (CONNECTIONS * 1000) / level.req_per_s - pause;
      pause = Math.max(0, (CONNECTIONS * 1000) / target - perRequestMs);
    }
  }
  const statuses: Record<string, number> = {};
  for (const s of samples) for (const [status, n] of Object.entries(s.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  const undocumented = Object.fromEntries(Object.entries(statuses).filter(([status]) => !DOCUMENTED.has(status)));
  const socketErrors = samples.reduce((n, s) => n + s.socket_errors + s.timeouts, 0);
  const memory = trend(samples.map((s) => s.pss_mb), (first) => Math.max(0.05 * first, 25));
  const fds = trend(samples.map((s) => s.fds.total), () => 10);
  const achieved = samples.reduce((n, s) => n + s.req_per_s, 0) / samples.length;
  const checks = {
    memory_flat: memory.flat,
    descriptors_flat: fds.flat,
    no_undocumented_errors: Object.keys(undocumented).length === 0 && socketErrors === 0,
  };
  failed = !Object.values(checks).every(Boolean);
  console.log(`soak: ${r(achieved, 1)} req/s on average (${r((100 * achieved) / capacity.req_per_s, 1)} % of capacity); answers ${JSON.stringify(statuses)}; memory ${memory.first_third} -> ${memory.last_third} MB PSS (${memory.flat ? 'flat' : 'growing'}); descriptors ${fds.first_third} -> ${fds.last_third} (${fds.flat ? 'flat' : 'growing'}); undocumented answers ${JSON.stringify(undocumented)}, socket errors and timeouts ${socketErrors}`);
  const out = {
    startedAt,
    machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
    load_avg_start: loadAtStart,
    load_avg_end: loadavg().map((x) => r(x, 2)),
    settings: { minutes: MINUTES, share_of_capacity: SHARE, connections: CONNECTIONS, capacity_seconds: CAPACITY_SEC, sample_seconds: SAMPLE_SEC, keys: KEYS, target: TARGET, generator: 'wrk -t1 --timeout 30s, a paced pause before each request, one key per request in rotation' },
    capacity,
    target_req_per_s: r(target, 1),
    achieved_req_per_s: r(achieved, 1),
    baseline,
    samples,
    answers: statuses,
    undocumented_answers: undocumented,
    socket_errors_and_timeouts: socketErrors,
    memory_pss_mb: memory,
    descriptors: fds,
    checks,
  };
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'soak.json'), `${JSON.stringify(out, null, 2)}\n`);
} finally {
  await platform.stop();
  rmSync(workDir, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;
