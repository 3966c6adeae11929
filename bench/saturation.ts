/**
 * Saturation with an external load generator (`npm run bench saturation`; issue 14, item 6).
 * Launches the one-machine platform as a user starts it (the launcher: scheduler, one node, facade;
 * embedded database and queue), then drives it with Debian's `wrk` (installed by
 * `scripts/setup.sh --for-bench`) on the loopback: "Hello world." with flite:slt through
 * `POST /v1/audio/speech` in every response format and through `POST /api/tts` (wav), at
 * concurrency 1, 8, 32 and 64 (BENCH_SATURATION_LEVELS), after a warm-up, level by level. Each level
 * runs BENCH_SATURATION_ROUNDS rounds (default 3); a round runs every target for BENCH_SATURATION_SEC
 * seconds (default 6), in an order that rotates from round to round. A target's figures at a level are
 * the round with its median req/s; its share of wav is the median over the rounds of its req/s over
 * wav's in the same round (on a shared 2-vCPU machine one window per target was too noisy: the
 * saturation sittings in bench/HISTORY.md). Requests
 * rotate over 64 API keys (each limited to the documented 360/min), so no key is rate limited below
 * 384 req/s in all. Reports req/s of successful answers, p50/p95/p99 latency, non-2xx answers and
 * socket errors per format and level, the ratio of each format to wav at the same level, and the PSS
 * of the platform's process tree before and after. A second platform with the settings of
 * BENCH_SATURATION_BEFORE_ENV (default TTS_AUDIO_ENCODERS=ffmpeg, the former encoders: one ffmpeg
 * process per request; e.g. TTS_OPUS_COMPLEXITY=10) is measured in the same sitting at the levels in
 * BENCH_SATURATION_BEFORE_LEVELS (default 8; empty = none), each run right after the same run on
 * the current platform. Writes bench/results/saturation.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchPlatform, post } from './platform.js';
import { treeMemory } from './process-tree.js';
import { percentile, r } from './support.js';
import { requireWrk, runWrk, writeWrkScript, type Level, type Target } from './wrk.js';

const SECONDS = Number(process.env['BENCH_SATURATION_SEC'] ?? 6);
const ROUNDS = Number(process.env['BENCH_SATURATION_ROUNDS'] ?? 3);
const LEVELS = (process.env['BENCH_SATURATION_LEVELS'] ?? '1,8,32,64').split(',').map(Number);
const BEFORE_LEVELS = (process.env['BENCH_SATURATION_BEFORE_LEVELS'] ?? '8').split(',').filter((x) => x !== '').map(Number);
/** Variables of the "before" platform: NAME=value, separated by spaces. */
const BEFORE_ENV = Object.fromEntries((process.env['BENCH_SATURATION_BEFORE_ENV'] ?? 'TTS_AUDIO_ENCODERS=ffmpeg').split(/\s+/).filter((x) => x.includes('=')).map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)]));
const KEYS = 64;
const TEXT = 'Hello world.';
const VOICE = 'flite:slt';

const TARGETS: readonly Target[] = [
  ...(['wav', 'mp3', 'opus', 'aac', 'flac', 'pcm'] as const).map((format) => ({ name: `speech ${format}`, path: '/v1/audio/speech', body: { model: 'tts-1', input: TEXT, voice: VOICE, response_format: format } })),
  { name: 'api/tts wav', path: '/api/tts', body: { text: TEXT, voice: VOICE, format: 'wav' } },
];

requireWrk();
const workDir = mkdtempSync(join(tmpdir(), 'tts-saturation-'));
const script = writeWrkScript(join(workDir, 'rotate-keys.lua'));
const startedAt = new Date().toISOString();
const loadAtStart = loadavg().map((x) => r(x, 2));
const platform = await launchPlatform({}, KEYS);
const former = BEFORE_LEVELS.length > 0 ? await launchPlatform(BEFORE_ENV, KEYS) : undefined;
const print = (label: string, name: string, level: Level): void =>
  console.log(`${label} ${name.padEnd(12)} c=${String(level.concurrency).padStart(2)}: ${level.req_per_s} req/s, p50 ${level.p50_ms} ms, p95 ${level.p95_ms} ms, p99 ${level.p99_ms} ms, non-2xx ${level.non_2xx}, socket errors ${level.socket_errors} (load ${level.load_avg_1m})`);
try {
  // Every target answers 200 with audio before it is loaded.
  for (const p of [platform, ...(former ? [former] : [])]) {
    for (const t of TARGETS) {
      const res = await post(p, t.path, t.body);
      if (res.status !== 200 || res.bytes < 100) throw new Error(`${t.name}: status ${res.status}, ${res.bytes} bytes`);
    }
  }
  const memoryBefore = treeMemory(platform.pid);
  console.log(`memory before: ${memoryBefore.pss_mb} MB PSS over ${memoryBefore.processes} processes`);
  for (const t of TARGETS) await runWrk(platform, t, 8, 3, script); // warm-up, not reported
  if (former) for (const t of TARGETS) await runWrk(former, t, 8, 3, script);
  // Level by level; within a level, rounds of every target in an order that rotates from round to
  // round, so that a change in the machine's load falls on every format alike rather than on the ones
  // measured last, and each format is measured close in time to wav in every round.
  const rounds: Record<string, Level[][]> = Object.fromEntries(TARGETS.map((t) => [t.name, []]));
  const formerRounds: Record<string, Level[][]> = Object.fromEntries(TARGETS.map((t) => [t.name, []]));
  let turn = 0;
  for (const c of LEVELS) {
    for (const t of TARGETS) {
      rounds[t.name]!.push([]);
      formerRounds[t.name]!.push([]);
    }
    for (let round = 0; round < ROUNDS; round++, turn++) {
      for (const t of [...TARGETS.slice(turn % TARGETS.length), ...TARGETS.slice(0, turn % TARGETS.length)]) {
        const level = await runWrk(platform, t, c, SECONDS, script);
        rounds[t.name]!.at(-1)!.push(level);
        print('now   ', t.name, level);
        if (former && BEFORE_LEVELS.includes(c)) {
          const old = await runWrk(former, t, c, SECONDS, script);
          formerRounds[t.name]!.at(-1)!.push(old);
          print('before', t.name, old);
        }
      }
    }
  }
  const memoryAfter = treeMemory(platform.pid);
  console.log(`memory after: ${memoryAfter.pss_mb} MB PSS over ${memoryAfter.processes} processes`);
  const results = medianRounds(rounds);
  const formerResults = medianRounds(formerRounds);
  const ratios = shareOfWav(rounds);
  const formerRatios = shareOfWav(formerRounds);
  for (const [name, rs] of Object.entries(ratios)) console.log(`${name} / wav per level (median of ${ROUNDS} rounds): ${rs.map((x) => x.median).join(', ')}`);
  const peak = Object.fromEntries(Object.entries(results).map(([name, levels]) => [name, levels.reduce((best, l) => (l.req_per_s > best.req_per_s ? l : best))]));
  const out = {
    startedAt,
    machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
    load_avg_start: loadAtStart,
    load_avg_end: loadavg().map((x) => r(x, 2)),
    settings: { seconds_per_round: SECONDS, rounds_per_level: ROUNDS, levels: LEVELS, keys: KEYS, text: TEXT, voice: VOICE, generator: 'wrk -t1 --timeout 30s, one key per request in rotation' },
    memory_before: memoryBefore,
    memory_after: memoryAfter,
    results,
    ratio_to_wav: ratios,
    rounds,
    former_encoders: former ? { setting: Object.entries(BEFORE_ENV).map(([k, v]) => `${k}=${v}`).join(' '), levels: BEFORE_LEVELS, results: formerResults, ratio_to_wav: formerRatios, rounds: formerRounds, memory_after: treeMemory(former.pid) } : null,
    peak,
  };
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'saturation.json'), `${JSON.stringify(out, null, 2)}\n`);
} finally {
  await platform.stop();
  await former?.stop();
  rmSync(workDir, { recursive: true, force: true });
}

/** Per target and level, the round with the median req/s (levels with no rounds are left out). */
function medianRounds(byTarget: Record<string, Level[][]>): Record<string, Level[]> {
  return Object.fromEntries(
    Object.entries(byTarget).map(([name, levels]) => [
      name,
      levels.filter((rs) => rs.length > 0).map((rs) => [...rs].sort((a, b) => a.req_per_s - b.req_per_s)[Math.floor((rs.length - 1) / 2)]!),
    ]),
  );
}

/** Each /v1/audio/speech format's req/s over wav's in the same round, per level: the median and the range over the rounds. */
function shareOfWav(byTarget: Record<string, Level[][]>): Record<string, { median: number; min: number; max: number }[]> {
  const wav = byTarget['speech wav']!;
  return Object.fromEntries(
    Object.entries(byTarget)
      .filter(([name]) => name.startsWith('speech ') && name !== 'speech wav')
      .map(([name, levels]) => [
        name,
        levels
          .map((rs, li) => rs.map((l, ri) => l.req_per_s / wav[li]![ri]!.req_per_s))
          .filter((shares) => shares.length > 0)
          .map((shares) => ({ median: r(percentile(shares, 50), 3), min: r(Math.min(...shares), 3), max: r(Math.max(...shares), 3) })),
      ]),
  );
}
