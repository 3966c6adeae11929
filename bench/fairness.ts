/**
 * Fairness between callers (`npm run bench fairness`; issue 35, item 5). Launches the one-machine
 * platform as a user starts it (the launcher with its defaults: scheduler, one node, facade) and
 * creates two pro keys; each voice answers one short request. First the second key ("victim") sends short requests alone
 * (`{"text":"Ping."}` through `POST /api/tts`, alternately to festival:slt and espeak:en-us,
 * one at a time every BENCH_FAIRNESS_GAP_MS, default 400) for BENCH_FAIRNESS_IDLE_SEC seconds
 * (default 10): its idle latency. Then the first key ("flood") keeps BENCH_FAIRNESS_PARALLEL
 * (default 8) requests of BENCH_FAIRNESS_CHARS characters (default 5000, the pro tier's longest
 * text) to festival:slt in flight for BENCH_FAIRNESS_LOAD_SEC seconds (default 40), sending the next
 * as soon as one answers (after its Retry-After when refused), while the victim goes on as before. Reports the victim's latency under
 * load against idle per engine (p50, p95, max), its answers by status and code, and the flood's
 * answers. Target: the victim's p50 under load within 2x its idle p50 on both engines, and no 503.
 * Writes bench/results/fairness.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchPlatform, postTts, type LaunchedPlatform } from './platform.js';
import { answersOf, percentile, r } from './support.js';
import { harvardText } from '../tests/support/text.js';

const PARALLEL = Number(process.env['BENCH_FAIRNESS_PARALLEL'] ?? 8);
const CHARS = Number(process.env['BENCH_FAIRNESS_CHARS'] ?? 5000);
const IDLE_SEC = Number(process.env['BENCH_FAIRNESS_IDLE_SEC'] ?? 10);
const LOAD_SEC = Number(process.env['BENCH_FAIRNESS_LOAD_SEC'] ?? 40);
const GAP_MS = Number(process.env['BENCH_FAIRNESS_GAP_MS'] ?? 400);
const VICTIM_VOICES = ['festival:slt', 'espeak:en-us'] as const;

/** One answer: latency, status and error code. */
interface Outcome {
  readonly voice: string;
  readonly ms: number;
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: number | undefined;
}

/** One `POST /api/tts` (wav) with `key`; never rejects (a socket error is status 0). */
async function tts(p: LaunchedPlatform, key: string, text: string, voice: string): Promise<Outcome> {
  const t = performance.now();
  const answer = await postTts(p, JSON.stringify({ text, voice, format: 'wav' }), key);
  return { voice, ms: performance.now() - t, ...answer };
}

/** A key of `tier`, created with the administrator key the bench's platform was started with. */
async function createKey(p: LaunchedPlatform, name: string, tier: string): Promise<string> {
  const res = await fetch(`${p.url}/api/auth/keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-admin-key': p.adminKey }, body: JSON.stringify({ name, tier }) });
  if (res.status !== 201 && res.status !== 200) throw new Error(`key creation answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { api_key: string }).api_key;
}

/** The victim: one short request at a time, alternating voices, every GAP_MS, until `until`. */
async function victim(p: LaunchedPlatform, key: string, until: number): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (let i = 0; performance.now() < until; i++) {
    const started = performance.now();
    out.push(await tts(p, key, 'Ping.', VICTIM_VOICES[i % VICTIM_VOICES.length]!));
    const wait = started + GAP_MS - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return out;
}

/** Latency of the successful answers of one voice. */
function latency(outcomes: readonly Outcome[], voice: string) {
  const ms = outcomes.filter((o) => o.voice === voice && o.status === 200).map((o) => o.ms);
  return ms.length === 0 ? null : { n: ms.length, p50: r(percentile(ms, 50), 1), p95: r(percentile(ms, 95), 1), max: r(Math.max(...ms), 1) };
}

const startedAt = new Date().toISOString();
const loadAtStart = loadavg().map((x) => r(x, 2));
const platform = await launchPlatform({}, 0);
let out;
try {
  const floodKey = await createKey(platform, 'bench-flood', 'pro');
  const victimKey = await createKey(platform, 'bench-victim', 'pro');
  const longText = harvardText(CHARS).slice(0, CHARS);
  // Warm-up: both voices answer once. The flood then comes, as in the issue, to a node that has
  // measured festival's speed on short texts only.
  for (const voice of VICTIM_VOICES) await tts(platform, victimKey, 'Warm up.', voice);

  const idle = await victim(platform, victimKey, performance.now() + IDLE_SEC * 1000);
  console.log(`idle: festival ${JSON.stringify(latency(idle, 'festival:slt'))}, espeak ${JSON.stringify(latency(idle, 'espeak:en-us'))}, answers ${JSON.stringify(answersOf(idle))}`);

  const loadEnd = performance.now() + LOAD_SEC * 1000;
  const flood: Outcome[] = [];
  const flooding = Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (performance.now() < loadEnd) {
      const o = await tts(platform, floodKey, longText, 'festival:slt');
      flood.push(o);
      // A refused request is sent again after its Retry-After, as a well-behaved client does.
      if (o.status !== 200) await new Promise((resolve) => setTimeout(resolve, 1000 * (o.retryAfter ?? 1)));
    }
  }));
  // The flood's requests reach the node before the victim's first one under load.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const loaded = await victim(platform, victimKey, loadEnd);
  await flooding;
  console.log(`under load: festival ${JSON.stringify(latency(loaded, 'festival:slt'))}, espeak ${JSON.stringify(latency(loaded, 'espeak:en-us'))}, answers ${JSON.stringify(answersOf(loaded))} (503 festival ${loaded.filter((o) => o.voice === 'festival:slt' && o.status === 503).length}, espeak ${loaded.filter((o) => o.voice === 'espeak:en-us' && o.status === 503).length}); flood answers ${JSON.stringify(answersOf(flood))}`);

  const ratio = (voice: string): number | null => {
    const a = latency(idle, voice);
    const b = latency(loaded, voice);
    return a && b ? r(b.p50 / a.p50, 2) : null;
  };
  const unavailable = loaded.filter((o) => o.status === 503).length;
  out = {
    startedAt,
    machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
    load_avg_start: loadAtStart,
    load_avg_end: loadavg().map((x) => r(x, 2)),
    settings: { parallel: PARALLEL, characters: CHARS, flood_voice: 'festival:slt', victim_voices: VICTIM_VOICES, idle_seconds: IDLE_SEC, load_seconds: LOAD_SEC, victim_gap_ms: GAP_MS, tiers: 'pro / pro', operation: 'POST /api/tts (wav)' },
    victim: {
      idle: { answers: answersOf(idle), festival: latency(idle, 'festival:slt'), espeak: latency(idle, 'espeak:en-us') },
      under_load: {
        answers: answersOf(loaded),
        festival: latency(loaded, 'festival:slt'),
        espeak: latency(loaded, 'espeak:en-us'),
        '503': unavailable,
        '503_by_voice': Object.fromEntries(VICTIM_VOICES.map((v) => [v, loaded.filter((o) => o.voice === v && o.status === 503).length])),
      },
      p50_ratio_load_over_idle: { festival: ratio('festival:slt'), espeak: ratio('espeak:en-us') },
    },
    flood: { answers: answersOf(flood) },
    targets: {
      within_2x_idle_p50: (ratio('festival:slt') ?? Infinity) <= 2 && (ratio('espeak:en-us') ?? Infinity) <= 2,
      no_503: unavailable === 0,
    },
  };
  console.log(`p50 under load / idle: festival ${out.victim.p50_ratio_load_over_idle.festival}, espeak ${out.victim.p50_ratio_load_over_idle.espeak}; 503s ${unavailable}; targets ${JSON.stringify(out.targets)}`);
} finally {
  await platform.stop();
}
const dir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'fairness.json'), `${JSON.stringify(out, null, 2)}\n`);
