/**
 * Overload at twice the capacity (`npm run bench overload`; issue 16, item 3). Launches the
 * one-machine platform as a user starts it (the launcher: scheduler, one node, facade), first with
 * admission off (`TTS_ADMISSION=false`: every request is accepted and waits until its deadline),
 * then on (the default), each with the deadline `TTS_REQUEST_TIMEOUT_MS` of
 * BENCH_OVERLOAD_TIMEOUT_MS (default 20000, so that a bounded run reaches the state where waits
 * exceed it). On the first platform it finds the capacity: BENCH_OVERLOAD_CLIENTS
 * closed-loop clients (default 2: with two sentences of each in flight, the node's two flite slots
 * are busy) sending long texts (BENCH_OVERLOAD_CHARS characters of Harvard sentences,
 * default 2000, voice BENCH_OVERLOAD_VOICE, default flite:slt) through `POST /api/tts` (wav) for
 * BENCH_OVERLOAD_CAPACITY_SEC seconds (default 30): completed requests per second. Then each
 * platform is offered twice that rate, open loop (requests sent at fixed intervals whatever the
 * answers, as independent users do), for BENCH_OVERLOAD_SEC seconds (default 60), and every answer
 * is awaited. Reports per platform: answers by status and code, goodput (successful answers that
 * completed within the offering window, per second) as a share of the capacity, the success share
 * of the accepted requests (those not refused by admission), latency of the successes, and the
 * Retry-After values of the refusals. Targets: goodput >= 80 % of capacity, >= 90 % of accepted
 * requests succeed. Writes bench/results/overload.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchPlatform, postTts, type LaunchedPlatform } from './platform.js';
import { answersOf, percentile, r } from './support.js';
import { harvardText } from '../tests/support/text.js';

const TIMEOUT_MS = Number(process.env['BENCH_OVERLOAD_TIMEOUT_MS'] ?? 20_000);
const CHARS = Number(process.env['BENCH_OVERLOAD_CHARS'] ?? 2000);
const VOICE = process.env['BENCH_OVERLOAD_VOICE'] ?? 'flite:slt';
const CLIENTS = Number(process.env['BENCH_OVERLOAD_CLIENTS'] ?? 2);
const CAPACITY_SEC = Number(process.env['BENCH_OVERLOAD_CAPACITY_SEC'] ?? 30);
const OVERLOAD_SEC = Number(process.env['BENCH_OVERLOAD_SEC'] ?? 60);
const FACTOR = Number(process.env['BENCH_OVERLOAD_FACTOR'] ?? 2);
const KEYS = 8;

const BODY = JSON.stringify({ text: harvardText(CHARS), voice: VOICE, format: 'wav' });

/** One answer: when it was sent and ended (ms from the phase's start), its status and error code. */
interface Outcome {
  readonly sentMs: number;
  readonly endMs: number;
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: number | undefined;
}

let nextKey = 0;

/** One `POST /api/tts`; never rejects (a socket error is status 0). */
async function request(p: LaunchedPlatform, t0: number): Promise<Outcome> {
  const sentMs = performance.now() - t0;
  const answer = await postTts(p, BODY, p.apiKeys[nextKey++ % p.apiKeys.length]!);
  return { sentMs, endMs: performance.now() - t0, ...answer };
}

/** Closed loop: `clients` clients sending back to back for `seconds`; successful answers per second. */
async function capacity(p: LaunchedPlatform, clients: number, seconds: number): Promise<{ req_per_s: number; ok: number; answers: Record<string, number>; p50_ms: number }> {
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const outcomes: Outcome[] = [];
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < end) outcomes.push(await request(p, t0));
  }));
  const elapsed = (performance.now() - t0) / 1000;
  const ok = outcomes.filter((o) => o.status === 200);
  return { req_per_s: r(ok.length / elapsed, 3), ok: ok.length, answers: answersOf(outcomes), p50_ms: Math.round(percentile(ok.map((o) => o.endMs - o.sentMs), 50)) };
}

/** Open loop: `rate` requests per second at fixed intervals for `seconds`; every answer awaited. */
async function offer(p: LaunchedPlatform, rate: number, seconds: number): Promise<Outcome[]> {
  const t0 = performance.now();
  const total = Math.round(rate * seconds);
  const pending: Promise<Outcome>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(request(p, t0));
  }
  return Promise.all(pending);
}

/** The figures of one overload phase. */
function summarize(outcomes: readonly Outcome[], capacityPerSec: number, seconds: number) {
  const ok = outcomes.filter((o) => o.status === 200);
  const refused = outcomes.filter((o) => o.code === 'TTS_OVERLOADED');
  const accepted = outcomes.length - refused.length;
  const byAnswer = answersOf(outcomes);
  const goodput = ok.filter((o) => o.endMs <= seconds * 1000).length / seconds;
  const retryAfter = refused.map((o) => o.retryAfter ?? Number.NaN);
  return {
    offered: outcomes.length,
    answers: byAnswer,
    goodput_req_per_s: r(goodput, 3),
    goodput_share_of_capacity: r(goodput / capacityPerSec, 3),
    successes_total: ok.length,
    accepted,
    success_share_of_accepted: accepted > 0 ? r(ok.length / accepted, 3) : null,
    success_latency_ms: ok.length > 0 ? { p50: Math.round(percentile(ok.map((o) => o.endMs - o.sentMs), 50)), p95: Math.round(percentile(ok.map((o) => o.endMs - o.sentMs), 95)), max: Math.round(Math.max(...ok.map((o) => o.endMs - o.sentMs))) } : null,
    refusal_latency_ms_p95: refused.length > 0 ? Math.round(percentile(refused.map((o) => o.endMs - o.sentMs), 95)) : null,
    retry_after_s: refused.length > 0 ? { min: Math.min(...retryAfter), p50: percentile(retryAfter, 50), max: Math.max(...retryAfter) } : null,
    last_answer_s: r(Math.max(...outcomes.map((o) => o.endMs)) / 1000, 1),
  };
}

const startedAt = new Date().toISOString();
const loadAtStart = loadavg().map((x) => r(x, 2));
const env = { TTS_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) };
const phases: Record<string, ReturnType<typeof summarize> & { setting: string }> = {};
let measured: Awaited<ReturnType<typeof capacity>> | undefined;
for (const [name, admission] of [['before (admission off)', 'false'], ['after (admission on)', 'true']] as const) {
  const platform = await launchPlatform({ ...env, TTS_ADMISSION: admission }, KEYS);
  try {
    // Warm-up: the node learns the voice's seconds per character from a few long texts.
    for (let i = 0; i < 3; i++) await request(platform, performance.now());
    if (!measured) {
      measured = await capacity(platform, CLIENTS, CAPACITY_SEC);
      console.log(`capacity: ${measured.req_per_s} req/s of ${CHARS} characters (${measured.ok} answers in ${CAPACITY_SEC} s, ${CLIENTS} clients, p50 ${measured.p50_ms} ms; answers ${JSON.stringify(measured.answers)})`);
      if (measured.ok === 0) throw new Error('no request succeeded while measuring the capacity');
      // Let the queue of the capacity run drain.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    const rate = FACTOR * measured.req_per_s;
    const outcomes = await offer(platform, rate, OVERLOAD_SEC);
    const s = summarize(outcomes, measured.req_per_s, OVERLOAD_SEC);
    phases[name] = { setting: `TTS_ADMISSION=${admission}`, ...s };
    console.log(`${name}: offered ${s.offered} at ${r(rate, 2)} req/s for ${OVERLOAD_SEC} s; answers ${JSON.stringify(s.answers)}; goodput ${s.goodput_req_per_s} req/s = ${r(100 * s.goodput_share_of_capacity, 1)} % of capacity; ${s.success_share_of_accepted === null ? '-' : `${r(100 * s.success_share_of_accepted, 1)} %`} of ${s.accepted} accepted succeeded; success p50/p95 ${s.success_latency_ms?.p50 ?? '-'}/${s.success_latency_ms?.p95 ?? '-'} ms; Retry-After ${JSON.stringify(s.retry_after_s)}; last answer at ${s.last_answer_s} s (load ${r(loadavg()[0]!, 2)})`);
  } finally {
    await platform.stop();
  }
}
const after = phases['after (admission on)']!;
const out = {
  startedAt,
  machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
  load_avg_start: loadAtStart,
  load_avg_end: loadavg().map((x) => r(x, 2)),
  settings: { deadline_ms: TIMEOUT_MS, characters: CHARS, voice: VOICE, capacity_clients: CLIENTS, capacity_seconds: CAPACITY_SEC, overload_seconds: OVERLOAD_SEC, factor: FACTOR, operation: 'POST /api/tts (wav)', generator: 'bench process, open loop at fixed intervals' },
  capacity: measured,
  phases,
  targets: {
    goodput_at_least_80_percent_of_capacity: after.goodput_share_of_capacity >= 0.8,
    at_least_90_percent_of_accepted_succeed: (after.success_share_of_accepted ?? 0) >= 0.9,
  },
};
console.log(`targets (admission on): goodput >= 80 % of capacity: ${out.targets.goodput_at_least_80_percent_of_capacity}; >= 90 % of accepted succeed: ${out.targets.at_least_90_percent_of_accepted_succeed}`);
const dir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'overload.json'), `${JSON.stringify(out, null, 2)}\n`);
