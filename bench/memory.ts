/**
 * Memory of the one-machine platform (`npm run bench memory`; issue 14, item 2). Launches the
 * platform as a user would (the launcher and its children, from `dist/` as `npm start` runs them),
 * makes each default engine (festival, flite, espeak) serve a request, then sums PSS (/proc/<pid>/smaps_rollup) over the
 * launcher and all its descendants, per process too; then sends BENCH_MEMORY_REQUESTS requests
 * (default 10,000; concurrency 8, "Hello world." over the three engines and wav/mp3, spread over 40
 * API keys so none reaches its 360/min limit) and measures again. Each Node.js process also reports
 * its `process.memoryUsage()` (V8 heap, external, ArrayBuffers) through bench/memory-report.mjs.
 * Runs embedded (no DATABASE_URL / REDIS_URL) and with TEST_DATABASE_URL / TEST_REDIS_URL (skipped
 * with a note when those servers do not answer). Writes bench/results/memory.json.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { TEST_DATABASE_URL, TEST_REDIS_URL, freshPrefix, freshSchemaName } from '@tts/common/testing';
import { openDatabase } from '@tts/common/data';
import { launchPlatform, post, type LaunchedPlatform } from './platform.js';
import { processTree, smapsRollup, treeCpuMs } from './process-tree.js';
import { load, r, summary } from './support.js';

const REQUESTS = Number(process.env['BENCH_MEMORY_REQUESTS'] ?? 10_000);
const CONCURRENCY = 8;
const VOICES = ['festival:slt', 'flite:slt', 'espeak:en-us'] as const;
const MB = 1024 * 1024;
/**
 * What runs: the compiled `dist/` as `npm start` runs it (the default; `npm run build` first), or
 * the TypeScript sources through tsx as the other benches and `npm run dev` run them (BENCH_MEMORY_LAUNCH=sources).
 */
const LAUNCH = process.env['BENCH_MEMORY_LAUNCH'] ?? 'dist';
if (LAUNCH === 'dist' && !existsSync(new URL('../services/launcher/dist/main.js', import.meta.url))) throw new Error('bench memory runs dist/: npm run build first (or BENCH_MEMORY_LAUNCH=sources)');
/**
 * Further embedded runs with settings from the environment, to compare in one sitting:
 * BENCH_MEMORY_VARIANTS="name:KEY=value,KEY=value;name2:..." (e.g. `flite1:TTS_FLITE_WORKERS=1`).
 * NODE_OPTIONS of a variant is added to the processes' options; BENCH_LAUNCH=sources|dist in a
 * variant chooses what runs, like BENCH_MEMORY_LAUNCH for every run.
 */
const VARIANTS = (process.env['BENCH_MEMORY_VARIANTS'] ?? '')
  .split(';')
  .filter((v) => v.includes(':'))
  .map((v) => {
    const [name, settings] = [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)];
    return { name, env: Object.fromEntries(settings.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])) as Record<string, string> };
  });

/** One process of the platform's tree and its memory. */
interface ProcessMemory {
  pid: number;
  role: string;
  pss_mb: number;
  rss_mb: number;
  pss_anon_mb: number;
  pss_file_mb: number;
  /** From process.memoryUsage() (Node.js processes only). */
  heap_used_mb?: number;
  heap_total_mb?: number;
  external_mb?: number;
  array_buffers_mb?: number;
}

function roleOf(pid: number): string {
  const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  for (const [needle, role] of [['launcher/src/control', 'control'], ['launcher/dist/control', 'control'], ['launcher', 'launcher'], ['scheduler', 'scheduler'], ['inference-node', 'node'], ['facade', 'facade'], ['esbuild', 'esbuild (tsx)'], ['festival', 'festival']] as const) {
    if (cmd.includes(needle)) return role;
  }
  return cmd.slice(0, 60);
}

/** PSS of the launcher's tree, per process, with each Node.js process's own report. */
async function measure(p: LaunchedPlatform, reportDir: string): Promise<{ total_pss_mb: number; total_rss_mb: number; processes: ProcessMemory[] }> {
  await sleep(2000); // let in-flight work and timers settle
  const pids = processTree(p.pid);
  const processes: ProcessMemory[] = [];
  for (const pid of pids) {
    try {
      const m = smapsRollup(pid);
      processes.push({ pid, role: roleOf(pid), pss_mb: r(m['Pss'] ?? 0, 1), rss_mb: r(m['Rss'] ?? 0, 1), pss_anon_mb: r(m['Pss_Anon'] ?? 0, 1), pss_file_mb: r(m['Pss_File'] ?? 0, 1) });
    } catch {
      // exited between listing and reading
    }
  }
  for (const x of processes) {
    if (!x.role.startsWith('esbuild') && x.role !== 'festival') {
      try {
        process.kill(x.pid, 'SIGUSR2');
      } catch {
        // gone
      }
    }
  }
  await sleep(1000);
  for (const x of processes) {
    try {
      const u = JSON.parse(readFileSync(join(reportDir, `${x.pid}.json`), 'utf8')) as NodeJS.MemoryUsage;
      Object.assign(x, { heap_used_mb: r(u.heapUsed / MB, 1), heap_total_mb: r(u.heapTotal / MB, 1), external_mb: r(u.external / MB, 1), array_buffers_mb: r(u.arrayBuffers / MB, 1) });
    } catch {
      // not a Node.js process
    }
  }
  return { total_pss_mb: r(processes.reduce((a, x) => a + x.pss_mb, 0), 1), total_rss_mb: r(processes.reduce((a, x) => a + x.rss_mb, 0), 1), processes };
}

async function synthesize(p: LaunchedPlatform, i: number): Promise<void> {
  const voice = VOICES[i % VOICES.length]!;
  const res = i % 2 === 0 ? await post(p, '/api/tts', { text: 'Hello world.', voice, format: 'wav' }) : await post(p, '/v1/audio/speech', { model: 'tts-1', input: 'Hello world.', voice, response_format: 'mp3' });
  if (res.status !== 200) throw new Error(`${voice}: status ${res.status}`);
}

async function run(name: string, settings: Record<string, string>): Promise<Record<string, unknown>> {
  const { BENCH_LAUNCH: launch = LAUNCH, ...env } = settings;
  if (launch !== 'dist' && launch !== 'sources') throw new Error(`BENCH_LAUNCH / BENCH_MEMORY_LAUNCH: "dist" or "sources", not "${launch}"`);
  const reportDir = mkdtempSync(join(tmpdir(), 'tts-bench-mem-'));
  const preload = fileURLToPath(new URL('./memory-report.mjs', import.meta.url));
  const nodeOptions = `${process.env['NODE_OPTIONS'] ?? ''} ${env['NODE_OPTIONS'] ?? ''} --import ${preload}`.trim();
  const started = performance.now();
  const p = await launchPlatform({ TTS_NODES: '1', METRICS_PORT: '0', TTS_BENCH_MEMORY_DIR: reportDir, ...env, NODE_OPTIONS: nodeOptions }, 40, launch);
  try {
    const readyMs = performance.now() - started;
    const atStart = await measure(p, reportDir);
    for (let i = 0; i < VOICES.length * 2; i++) await synthesize(p, i);
    const afterFirst = await measure(p, reportDir);
    let i = 0;
    const cpuBefore = treeCpuMs(p.pid);
    const { latencies, wallMs } = await load(CONCURRENCY, REQUESTS, () => synthesize(p, i++));
    // CPU per request says what the platform spends whatever else runs on the machine (req/s does not).
    const cpuPerRequest = r((treeCpuMs(p.pid) - cpuBefore) / REQUESTS, 2);
    const afterMany = await measure(p, reportDir);
    const s = summary(latencies);
    const row = { name, launched_from: launch, settings: env, ready_ms: r(readyMs, 0), at_start: atStart, after_each_engine: afterFirst, requests: REQUESTS, req_per_s: r((REQUESTS / wallMs) * 1000, 1), latency_p50_ms: r(s.p50, 1), cpu_ms_per_request: cpuPerRequest, after_requests: afterMany };
    const line = (m: { total_pss_mb: number; processes: ProcessMemory[] }): string => `${m.total_pss_mb} MB PSS (${m.processes.map((x) => `${x.role} ${x.pss_mb}`).join(', ')})`;
    console.log(`${name}: start ${line(atStart)}\n  after each engine ${line(afterFirst)}\n  after ${REQUESTS} requests ${line(afterMany)}\n  ${row.req_per_s} req/s, p50 ${row.latency_p50_ms} ms, ${cpuPerRequest} ms CPU per request`);
    return row;
  } finally {
    await p.stop();
    rmSync(reportDir, { recursive: true, force: true });
  }
}

for (const k of ['DATABASE_URL', 'REDIS_URL', 'SCHEDULER_DATABASE_URL']) delete process.env[k];
const out: Record<string, unknown> = { machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg_start: loadavg().map((x) => r(x)) }, date: new Date().toISOString(), runs: [] as unknown[] };
const runs = out['runs'] as unknown[];
runs.push(await run('embedded', {}));
for (const variant of VARIANTS) runs.push(await run(variant.name, variant.env));
const schema = freshSchemaName();
let external: Record<string, unknown> | undefined;
try {
  if (process.env['BENCH_MEMORY_EXTERNAL'] === '0') throw new Error('BENCH_MEMORY_EXTERNAL=0');
  const probe = await openDatabase({ url: TEST_DATABASE_URL, schema, maxConnections: 1 });
  try {
    external = await run('postgres+redis', { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL, TTS_DB_SCHEMA: schema, TTS_KV_PREFIX: freshPrefix() });
  } finally {
    await probe.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await probe.close();
  }
} catch (err) {
  console.log(`postgres+redis: not measured (${String(err)})`);
}
if (external) runs.push(external);
(out['machine'] as Record<string, unknown>)['loadavg_end'] = loadavg().map((x) => r(x));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/memory.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
console.log(`loadavg ${JSON.stringify(out['machine'])}`);
