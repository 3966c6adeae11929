/**
 * Scheduler and jobs benchmark (issue 4).
 * A real scheduler process (PostgreSQL at TEST_DATABASE_URL, Redis Streams at TEST_REDIS_URL, a
 * fresh schema and key prefix) and three real inference nodes in this process, registered over
 * gRPC. The nodes run a simulated engine ("sim": sleeps chars x ms-per-char, returns a short tone)
 * so the comparison measures routing, not CPU contention of a 2-core machine; one node is three
 * times slower than the others.
 * 1. Routing: the same open-loop Poisson arrivals (fixed rate, fixed seed) for round-robin,
 *    least-loaded (power of two choices) and least-loaded-all; job latency = SubmitJob call to the
 *    terminal event on a WatchJob stream; p50/p95/p99 and where jobs ran.
 * 2. Scheduling overhead on an idle system: SubmitJob call to the engine starting the job on a node.
 * 3. Restart: 1,000 jobs submitted, the scheduler killed with SIGKILL while they run, a new one
 *    started; every job must complete exactly once (checked in the database and the queue).
 * Writes bench/results/routing.json. Knobs: BENCH_ROUTING_SECONDS (per policy, default 30),
 * BENCH_ROUTING_LOAD (fraction of the three nodes' capacity offered, default 0.35: round-robin
 * sends a third of the jobs to the slow node, which it keeps at about 80% busy; at 0.43 and above
 * round-robin's slow-node queue grows without bound), BENCH_ROUTING_POLICIES (comma-separated).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobOwnerKind, type SchedulerClient } from '@tts/proto/scheduler';
import { callUnary, closeAllClients, schedulerClient, setLogSink } from '@tts/common';
import { openWorkQueue } from '@tts/common/kv';
import { start as startNode, type RunningNode, type SynthesisEngine, type VoiceDescriptor } from '@tts/inference-node';
import {
  jobSpec,
  openJobStorage,
  startSchedulerProcess,
  watchJobEvents,
  type ServiceProcess,
} from '@tts/scheduler/testing';
import { freePort } from '../tests/support/processes.js';
import { r, summary } from './support.js';

setLogSink(() => undefined);

const SECONDS = Number(process.env['BENCH_ROUTING_SECONDS'] ?? 30);
const LOAD = Number(process.env['BENCH_ROUTING_LOAD'] ?? 0.35);
const POLICIES = (process.env['BENCH_ROUTING_POLICIES'] ?? 'round-robin,least-loaded,least-loaded-all').split(',');
const FAST_MS_PER_CHAR = 1.5;
const SLOWDOWN = 3;
const SLOTS_PER_NODE = 2;
const RESTART_JOBS = 1000;
const FILLER = 'The quick brown fox jumps over the lazy dog. Then it rests in the shade of an old tree.';

/** Engine starts by marker word, for the overhead measurement. */
const engineStarts = new Map<string, number>();

const TONE: VoiceDescriptor = {
  id: 'sim:tone',
  name: 'tone',
  engine: 'sim',
  language: 'en-US',
  languages: ['en-US'],
  gender: 'neutral',
  sampleRate: 16000,
  quality: 'low',
  description: 'Simulated voice: a short tone after chars x ms-per-char of waiting.',
};

/** A simulated engine: costs chars x `msPerChar` of wall time, no CPU; two syntheses at once. */
function simEngine(msPerChar: number): SynthesisEngine {
  const tone = new Float32Array(1600).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / 16000));
  return {
    name: 'sim',
    description: `Simulated engine, ${msPerChar} ms per character.`,
    nativeSpeed: { min: 0.25, max: 4 },
    maxBatchSize: 1,
    concurrency: SLOTS_PER_NODE,
    device: 'cpu',
    features: [],
    async load() {},
    voices: () => [TONE],
    async synthesize(batch) {
      return Promise.all(
        batch.map(async (input) => {
          const marker = /\bticket ([a-z]+)\b/i.exec(input.text)?.[1]?.toLowerCase();
          if (marker !== undefined && !engineStarts.has(marker)) engineStarts.set(marker, performance.now());
          await sleep(input.text.length * msPerChar);
          return { audio: { samples: tone, sampleRate: 16000 }, speedApplied: true };
        }),
      );
    },
    async close() {},
  };
}

/** A lower-case letter code for job n (markers survive text normalization, digits would not). */
function marker(n: number): string {
  let s = '';
  let x = n;
  do {
    s = String.fromCharCode(97 + (x % 26)) + s;
    x = Math.floor(x / 26);
  } while (x > 0);
  return `q${s}`;
}

/** Deterministic PRNG (mulberry32), so every policy sees the same arrivals. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const storage = await openJobStorage();
const dataDir = await mkdtemp(join(tmpdir(), 'tts-bench-routing-'));
const port = await freePort();
const address = `127.0.0.1:${port}`;
const baseEnv = { ...storage.env, DATA_DIR: dataDir, SCHEDULER_ID: 'scheduler-bench', SCHEDULER_QUEUE_POLL_MS: '100' };
let scheduler: ServiceProcess = await startSchedulerProcess(port, { ...baseEnv, SCHEDULER_ROUTING: 'least-loaded' });
const client: SchedulerClient = schedulerClient(address);

const nodes: RunningNode[] = [];
for (const [nodeId, msPerChar] of [
  ['fast-1', FAST_MS_PER_CHAR],
  ['fast-2', FAST_MS_PER_CHAR],
  ['slow-3x', FAST_MS_PER_CHAR * SLOWDOWN],
] as const) {
  nodes.push(
    await startNode({
      host: '127.0.0.1',
      port: 0,
      nodeId,
      engines: [],
      extraEngines: [simEngine(msPerChar)],
      defaultVoice: 'sim:tone',
      schedulerAddress: address,
      heartbeatMs: 200,
    }),
  );
}

const waitForNodes = async (): Promise<void> => {
  const deadline = Date.now() + 15_000;
  while ((await callUnary(client.getQueueStats.bind(client), {}).catch(() => undefined))?.nodesReady !== 3) {
    if (Date.now() > deadline) throw new Error('nodes did not register');
    await sleep(100);
  }
};

const restartScheduler = async (env: Record<string, string>, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
  scheduler.kill(signal);
  await scheduler.exited;
  scheduler = await startSchedulerProcess(port, { ...baseEnv, ...env });
  await waitForNodes();
};

const submit = async (text: string): Promise<string> => {
  const res = await callUnary(client.submitJob.bind(client), {
    spec: jobSpec(text, { voice: 'sim:tone' }),
    ownerId: 'bench',
    ownerKind: JobOwnerKind.JOB_OWNER_KIND_API_KEY,
    tier: 'pro',
    requestId: '',
  });
  return res.job!.jobId;
};

/** Runs one job and resolves to [latency ms, node id]. */
const runJob = async (text: string): Promise<[number, string]> => {
  const t0 = performance.now();
  const jobId = await submit(text);
  const events = await watchJobEvents(client, jobId);
  const last = events.at(-1);
  if (last?.kind !== 'completed') throw new Error(`job ${jobId} ended ${last?.kind ?? 'without events'}: ${last?.errorCode ?? ''}`);
  return [performance.now() - t0, last.nodeId];
};

await waitForNodes();
const jobText = (n: number): string => `Ticket ${marker(n)}. ${FILLER}`;
const textChars = jobText(100000).length;
const fastJobSec = (textChars * FAST_MS_PER_CHAR) / 1000;
const capacityJobsPerSec = (2 * SLOTS_PER_NODE) / fastJobSec + SLOTS_PER_NODE / (fastJobSec * SLOWDOWN);
const rate = capacityJobsPerSec * LOAD;
console.log(`job ~${textChars} chars: ${r(fastJobSec * 1000, 0)} ms on a fast node, ${r(fastJobSec * SLOWDOWN * 1000, 0)} ms on the slow one; capacity ${r(capacityJobsPerSec, 1)} jobs/s; offered ${r(rate, 1)} jobs/s for ${SECONDS} s per policy`);

// Warm-up: the nodes' measured seconds per character converge (EMA) before anything is measured.
{
  let n = 0;
  await Promise.all(Array.from({ length: 6 }, async () => {
    for (let i = 0; i < 5; i++) await runJob(jobText(900000 + n++));
  }));
}

// ---- 1. routing policies under the same open-loop load ----
const routing: Record<string, unknown> = {};
let jobCounter = 0;
for (const policy of POLICIES) {
  await restartScheduler({ SCHEDULER_ROUTING: policy });
  const random = prng(42);
  const latencies: number[] = [];
  const perNode: Record<string, number> = {};
  const runs: Promise<void>[] = [];
  const started = performance.now();
  let at = 0;
  let failures = 0;
  while (at < SECONDS * 1000) {
    const wait = started + at - performance.now();
    if (wait > 0) await sleep(wait);
    const text = jobText(jobCounter++);
    runs.push(
      runJob(text).then(
        ([ms, node]) => {
          latencies.push(ms);
          perNode[node] = (perNode[node] ?? 0) + 1;
        },
        () => {
          failures++;
        },
      ),
    );
    at += (-Math.log(1 - random()) / rate) * 1000;
  }
  await Promise.all(runs);
  const s = summary(latencies);
  routing[policy] = { jobs: s.n, failures, p50_ms: r(s.p50, 0), p95_ms: r(s.p95, 0), p99_ms: r(s.p99, 0), mean_ms: r(s.mean, 0), jobs_per_node: perNode };
  console.log(`${policy.padEnd(17)} p50 ${r(s.p50, 0)} ms  p95 ${r(s.p95, 0)} ms  p99 ${r(s.p99, 0)} ms  (${s.n} jobs, ${failures} failed) per node ${JSON.stringify(perNode)}`);
}
const p95 = (name: string): number => (routing[name] as { p95_ms: number }).p95_ms;
const reduction = 1 - p95('least-loaded') / p95('round-robin');
console.log(`least-loaded p95 is ${r(reduction * 100, 1)}% lower than round-robin (target >= 30%)`);

// ---- 2. scheduling overhead on an idle system ----
await restartScheduler({ SCHEDULER_ROUTING: 'least-loaded' });
const overheads: number[] = [];
for (let i = 0; i < 200; i++) {
  const n = 500000 + i;
  const t0 = performance.now();
  const jobId = await submit(`Ticket ${marker(n)}.`);
  await watchJobEvents(client, jobId);
  const t1 = engineStarts.get(marker(n));
  if (t1 !== undefined) overheads.push(t1 - t0);
}
const overhead = summary(overheads.slice(20));
console.log(`scheduling overhead (SubmitJob call -> engine start), idle: p50 ${r(overhead.p50)} ms  p95 ${r(overhead.p95)} ms`);

// ---- 3. 1,000 jobs across a scheduler crash ----
const restartStarted = performance.now();
const ids: string[] = [];
{
  let n = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (n < RESTART_JOBS) {
      const i = n++;
      ids.push(await submit(`Ticket ${marker(700000 + i)}. Restart.`));
    }
  }));
}
const submittedMs = performance.now() - restartStarted;
const countStates = async (): Promise<Record<string, number>> => {
  const rows = await storage.database.query<{ state: string; n: number }>(
    'SELECT state, count(*)::int8 AS n FROM jobs WHERE job_id = ANY($1::text[]) GROUP BY state',
    [`{${ids.join(',')}}`],
  );
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
};
const beforeCrash = await countStates();
await restartScheduler({ SCHEDULER_ROUTING: 'least-loaded' }, 'SIGKILL');
const deadline = Date.now() + 120_000;
let states = await countStates();
while ((states['completed'] ?? 0) + (states['failed'] ?? 0) + (states['cancelled'] ?? 0) < RESTART_JOBS && Date.now() < deadline) {
  await sleep(250);
  states = await countStates();
}
const drainMs = performance.now() - restartStarted;
const [dup] = await storage.database.query<{ bad: number; interrupted: number }>(
  `SELECT count(*) FILTER (WHERE completed <> 1)::int8 AS bad, count(*) FILTER (WHERE retried > 0)::int8 AS interrupted FROM (
     SELECT job_id, count(*) FILTER (WHERE kind = 'completed') AS completed, count(*) FILTER (WHERE kind = 'retrying') AS retried
     FROM job_events WHERE job_id = ANY($1::text[]) GROUP BY job_id) per_job`,
  [`{${ids.join(',')}}`],
);
const queueStats = await (await openWorkQueue(storage.kv, { name: 'jobs' })).stats();
const restart = {
  jobs: RESTART_JOBS,
  submitted_in_ms: r(submittedMs, 0),
  at_crash: beforeCrash,
  final_states: states,
  jobs_not_completed_exactly_once: dup?.bad ?? -1,
  jobs_interrupted_and_retried: dup?.interrupted ?? 0,
  queue_after: queueStats,
  all_done_in_ms: r(drainMs, 0),
};
console.log(`restart: ${JSON.stringify(restart)}`);

const results = {
  machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
  date: new Date().toISOString(),
  setup: {
    nodes: { 'fast-1': `${FAST_MS_PER_CHAR} ms/char`, 'fast-2': `${FAST_MS_PER_CHAR} ms/char`, 'slow-3x': `${FAST_MS_PER_CHAR * SLOWDOWN} ms/char` },
    slots_per_node: SLOTS_PER_NODE,
    job_chars: textChars,
    capacity_jobs_per_s: r(capacityJobsPerSec, 2),
    offered_jobs_per_s: r(rate, 2),
    seconds_per_policy: SECONDS,
    storage: 'PostgreSQL + Redis Streams',
  },
  routing,
  least_loaded_p95_reduction_vs_round_robin: r(reduction, 3),
  scheduling_overhead_idle_ms: { n: overhead.n, p50: r(overhead.p50, 2), p95: r(overhead.p95, 2), p99: r(overhead.p99, 2) },
  restart,
  targets: {
    p95_reduction_at_least_30_percent: reduction >= 0.3,
    overhead_p50_at_most_5_ms: overhead.p50 <= 5,
    restart_none_lost_or_duplicated: states['completed'] === RESTART_JOBS && dup?.bad === 0 && queueStats.pending === 0 && queueStats.waiting === 0,
  },
};
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/routing.json', `${JSON.stringify(results, null, 2)}\n`);
console.log(`targets: ${JSON.stringify(results.targets)}`);

await scheduler.stop();
await Promise.all(nodes.map((n) => n.stop(1000)));
closeAllClients();
await storage.close();
await rm(dataDir, { recursive: true, force: true });
