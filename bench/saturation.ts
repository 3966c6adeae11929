/**
 * Saturation with an external load generator (`npm run bench saturation`; issue 14, item 6).
 * Launches the one-machine platform as a user starts it (the launcher: scheduler, one node, facade;
 * embedded database and queue), then drives it with Debian's `wrk` (installed by
 * `scripts/setup.sh --for-bench`) on the loopback: "Hello world." with flite:slt through
 * `POST /v1/audio/speech` in every response format and through `POST /api/tts` (wav), at
 * concurrency 1, 8, 32 and 64 (BENCH_SATURATION_LEVELS), BENCH_SATURATION_SEC seconds each (default
 * 10), after a warm-up, level by level with the formats in a rotating order. Requests rotate over 64 API keys (each limited to the documented 360/min), so
 * no key is rate limited below 384 req/s in all. Reports req/s of successful answers, p50/p95/p99
 * latency, non-2xx answers and socket errors per format and level, the ratio of each format to
 * wav at the same level, and the PSS of the platform's process tree before and after. A second
 * platform with the settings of BENCH_SATURATION_BEFORE_ENV (default TTS_AUDIO_ENCODERS=ffmpeg, the
 * former encoders: one ffmpeg process per request; e.g. TTS_OPUS_COMPLEXITY=10) is measured in the same sitting at the levels in BENCH_SATURATION_BEFORE_LEVELS (default 8; empty
 * = none), each run right after the same run on the current platform. Writes
 * bench/results/saturation.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchPlatform, post } from './platform.js';
import { treeMemory } from './process-tree.js';
import { r } from './support.js';
import { requireWrk, runWrk, writeWrkScript, type Level, type Target } from './wrk.js';

const SECONDS = Number(process.env['BENCH_SATURATION_SEC'] ?? 10);
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
  // Level by level, the targets in a rotating order, so that a change in the machine's load falls on
  // every format alike rather than on the ones measured last.
  const results: Record<string, Level[]> = Object.fromEntries(TARGETS.map((t) => [t.name, []]));
  const formerResults: Record<string, Level[]> = Object.fromEntries(TARGETS.map((t) => [t.name, []]));
  for (const [i, c] of LEVELS.entries()) {
    for (const t of [...TARGETS.slice(i % TARGETS.length), ...TARGETS.slice(0, i % TARGETS.length)]) {
      const level = await runWrk(platform, t, c, SECONDS, script);
      results[t.name]!.push(level);
      print('now   ', t.name, level);
      if (former && BEFORE_LEVELS.includes(c)) {
        const old = await runWrk(former, t, c, SECONDS, script);
        formerResults[t.name]!.push(old);
        print('before', t.name, old);
      }
    }
  }
  const memoryAfter = treeMemory(platform.pid);
  console.log(`memory after: ${memoryAfter.pss_mb} MB PSS over ${memoryAfter.processes} processes`);
  const wav = results['speech wav']!;
  const ratios = Object.fromEntries(
    Object.entries(results)
      .filter(([name]) => name.startsWith('speech ') && name !== 'speech wav')
      .map(([name, levels]) => [name, levels.map((l, i) => r(l.req_per_s / wav[i]!.req_per_s, 3))]),
  );
  const peak = Object.fromEntries(Object.entries(results).map(([name, levels]) => [name, levels.reduce((best, l) => (l.req_per_s > best.req_per_s ? l : best))]));
  for (const [name, rs] of Object.entries(ratios)) console.log(`${name} / wav per level: ${rs.join(', ')}`);
  const out = {
    startedAt,
    machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
    load_avg_start: loadAtStart,
    load_avg_end: loadavg().map((x) => r(x, 2)),
    settings: { seconds_per_level: SECONDS, levels: LEVELS, keys: KEYS, text: TEXT, voice: VOICE, generator: 'wrk -t1 --timeout 30s, one key per request in rotation' },
    memory_before: memoryBefore,
    memory_after: memoryAfter,
    results,
    ratio_to_wav: ratios,
    former_encoders: former ? { setting: Object.entries(BEFORE_ENV).map(([k, v]) => `${k}=${v}`).join(' '), levels: BEFORE_LEVELS, results: formerResults, memory_after: treeMemory(former.pid) } : null,
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
