/**
 * The serving path's own cost (`npm run bench serving`; issue 30): how close short requests come to
 * what the bare engine could do on this machine. Launches the built platform as `npm start` runs it
 * (`dist/`, its defaults: one node, the embedded database and queue), then:
 * - the bare engine: "Hello world." through libflite called directly in this process, CPU ms a call;
 *   the machine's limit is cores x 1000 / that (req/s);
 * - `POST /v1/audio/speech` "Hello world." wav `flite:slt` driven by Debian's `wrk` at concurrency 1
 *   (latency alone) and at each level of BENCH_SERVING_LEVELS (default 8,32), BENCH_SERVING_SEC
 *   seconds (default 10) a run, BENCH_SERVING_ROUNDS rounds (default 3; the median round reported);
 *   requests rotate over BENCH_SERVING_KEYS API keys (default 32: each key may make 360 a minute);
 * - the CPU each process of the platform used per request during each run (from /proc), so the
 *   platform's own cost per request (everything but the engine) is read by process.
 * With BENCH_SERVING_PROFILE=<dir>, the platform's processes write V8 CPU profiles there
 * (`--cpu-prof`), which `bench/profile-stages.ts` sums by stage.
 * Writes bench/results/serving.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setLogSink } from '@tts/common';
import { fliteDirectSynthesize } from '@tts/inference-node/testing';
import { launchPlatform, post } from './platform.js';
import { cpuByProcess, treeMemory } from './process-tree.js';
import { r } from './support.js';
import { requireWrk, runWrk, writeWrkScript, type Level, type Target } from './wrk.js';

setLogSink(() => undefined);
const SECONDS = Number(process.env['BENCH_SERVING_SEC'] ?? 10);
const ROUNDS = Number(process.env['BENCH_SERVING_ROUNDS'] ?? 3);
const LEVELS = (process.env['BENCH_SERVING_LEVELS'] ?? '8,32').split(',').map(Number);
const KEYS = Number(process.env['BENCH_SERVING_KEYS'] ?? 32);
const PROFILE_DIR = process.env['BENCH_SERVING_PROFILE'];
const TEXT = 'Hello world.';
const TARGET: Target = { name: 'speech wav', path: '/v1/audio/speech', body: { model: 'tts-1', input: TEXT, voice: 'flite:slt', response_format: 'wav' } };

/** CPU ms of one bare libflite call of TEXT, in this process (median of 5 batches of 100 calls). */
function bareEngineCpuMs(): number {
  for (let i = 0; i < 20; i++) fliteDirectSynthesize(TEXT, 'slt');
  const batches: number[] = [];
  for (let b = 0; b < 5; b++) {
    const before = process.cpuUsage();
    for (let i = 0; i < 100; i++) fliteDirectSynthesize(TEXT, 'slt');
    const used = process.cpuUsage(before);
    batches.push((used.user + used.system) / 1000 / 100);
  }
  return batches.sort((a, b) => a - b)[2]!;
}

interface Run extends Level {
  /** CPU ms per successful request, by process role (summed over processes of a role). */
  cpu_ms_per_request: Record<string, number>;
  platform_cpu_ms_per_request: number;
  share_of_limit: number;
}

requireWrk();
const cores = availableParallelism();
const out: Record<string, unknown> = {
  machine: { cpu: cpus()[0]?.model, cores, node: process.version, loadavg_start: loadavg().map((x) => r(x, 2)) },
  date: new Date().toISOString(),
  settings: { seconds: SECONDS, rounds: ROUNDS, levels: LEVELS, keys: KEYS, text: TEXT, voice: 'flite:slt', format: 'wav', launch: 'dist (as npm start), platform defaults' },
};
const engineCpuMs = bareEngineCpuMs();
const limit = (cores * 1000) / engineCpuMs;
out['bare_engine'] = { cpu_ms_per_call: r(engineCpuMs, 2), limit_req_per_s: r(limit, 1) };
console.log(`bare libflite "${TEXT}": ${r(engineCpuMs, 2)} ms CPU a call -> at most ${r(limit, 1)} req/s on ${cores} cores`);

const workDir = mkdtempSync(join(tmpdir(), 'tts-serving-'));
const script = writeWrkScript(join(workDir, 'rotate-keys.lua'));
if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
const profiler = fileURLToPath(new URL('./cpu-profile.mjs', import.meta.url));
const platform = await launchPlatform(PROFILE_DIR ? { NODE_OPTIONS: `--import=${profiler}`, BENCH_PROFILE_DIR: PROFILE_DIR } : {}, KEYS, 'dist');
/** Starts or stops (and writes) the CPU profiles of the platform's Node processes. */
function toggleProfiles(): void {
  if (!PROFILE_DIR) return;
  for (const [pid, p] of cpuByProcess(platform.pid)) if (p.role !== 'festival') process.kill(pid, 'SIGUSR2');
}

/** One wrk run with the CPU each process used during it. */
async function measured(concurrency: number): Promise<Run> {
  const profiled = PROFILE_DIR !== undefined && concurrency === LEVELS[0];
  if (profiled) toggleProfiles();
  const before = cpuByProcess(platform.pid);
  const level = await runWrk(platform, TARGET, concurrency, SECONDS, script);
  const after = cpuByProcess(platform.pid);
  if (profiled) toggleProfiles();
  const ok = level.requests - level.non_2xx;
  const byRole: Record<string, number> = {};
  for (const [pid, a] of after) byRole[a.role] = (byRole[a.role] ?? 0) + (a.cpuMs - (before.get(pid)?.cpuMs ?? 0));
  const perRequest = Object.fromEntries(Object.entries(byRole).map(([role, ms]) => [role, r(ms / Math.max(1, ok), 2)]));
  const total = Object.values(byRole).reduce((a, b) => a + b, 0) / Math.max(1, ok);
  return { ...level, cpu_ms_per_request: perRequest, platform_cpu_ms_per_request: r(total, 2), share_of_limit: r(level.req_per_s / limit, 3) };
}

const median = (runs: Run[]): Run => [...runs].sort((a, b) => a.req_per_s - b.req_per_s)[Math.floor(runs.length / 2)]!;
const print = (run: Run): void =>
  console.log(
    `c=${String(run.concurrency).padStart(2)}: ${run.req_per_s} req/s (${run.share_of_limit} of the limit), p50 ${run.p50_ms} ms, p95 ${run.p95_ms} ms, non-2xx ${run.non_2xx}; CPU ms a request: ${run.platform_cpu_ms_per_request} (${Object.entries(run.cpu_ms_per_request).map(([k, v]) => `${k} ${v}`).join(', ')}) (load ${run.load_avg_1m})`,
  );
try {
  const first = await post(platform, TARGET.path, TARGET.body);
  if (first.status !== 200 || first.bytes < 100) throw new Error(`first request: status ${first.status}, ${first.bytes} bytes`);
  await runWrk(platform, TARGET, 8, 3, script); // warm-up, not reported
  const levels: Record<string, Run[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of [1, ...LEVELS]) {
      const run = await measured(c);
      print(run);
      (levels[String(c)] ??= []).push(run);
    }
  }
  out['levels'] = Object.fromEntries(Object.entries(levels).map(([c, runs]) => [c, { median: median(runs), runs }]));
  out['memory_after'] = treeMemory(platform.pid);
} finally {
  await platform.stop();
  rmSync(workDir, { recursive: true, force: true });
}
out['loadavg_end'] = loadavg().map((x) => r(x, 2));
const results = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(results, { recursive: true });
writeFileSync(join(results, 'serving.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log('medians:');
for (const [, v] of Object.entries(out['levels'] as Record<string, { median: Run }>)) print(v.median);
