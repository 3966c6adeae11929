/**
 * In-process encoders vs one ffmpeg process per request (`npm run bench encoders`, about 45 s;
 * issue 14). Both paths of the node's audio layer: `implementation: 'native'` (mp3, opus, flac and aac
 * in process) and `'ffmpeg'` (one ffmpeg process started per encoder, the former path). Measured: the time to encode a 1 s, 5 s and 30 s clip whole,
 * the time from creating a streaming encoder to its first bytes (one 1 s piece written, as a sentence
 * from an engine) beside pcm's, and the event loop's delay while a 30 s clip is encoded. The two paths
 * alternate rep by rep so outside load falls on both. Writes bench/results/encoders.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setLogSink } from '@tts/common';
import { createEncoder, encodeAudio, type AudioFormat, type EncoderImplementation, type PcmAudio } from '@tts/inference-node/testing';
import { r, summary } from './support.js';

setLogSink(() => undefined);
const RATE = 24_000;
const REPS: Record<number, number> = { 1: 30, 5: 12, 30: 4 };
const FIRST_CHUNK_REPS = 40;
/** 30 s clips encoded back to back while the event loop's delay is sampled. */
const LOOP_REPS = 5;

/** A voiced, speech-like test signal (gliding fundamental with harmonics, syllable envelope, a little noise). */
function voiceLike(sec: number): PcmAudio {
  const samples = new Float32Array(Math.round(RATE * sec));
  let phase = 0;
  let seed = 7;
  for (let i = 0; i < samples.length; i++) {
    const t = i / RATE;
    const f0 = 150 + 50 * Math.sin(2 * Math.PI * 0.7 * t);
    phase += (2 * Math.PI * f0) / RATE;
    let v = 0;
    for (let k = 1; k <= 20 && k * f0 < 0.4 * RATE; k++) v += Math.sin(k * phase) / k;
    seed = (seed * 1103515245 + 12345) >>> 0;
    samples[i] = 0.3 * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t)) * v + 0.01 * (seed / 2 ** 32 - 0.5);
  }
  return { samples, sampleRate: RATE };
}

/** Time from creating a streaming encoder to its first bytes, with one piece written (the write may still be running then). */
async function firstChunkMs(format: AudioFormat, implementation: EncoderImplementation, piece: Float32Array): Promise<number> {
  const started = performance.now();
  const encoder = createEncoder(format, RATE, { streaming: true, implementation });
  const firstAt = encoder[Symbol.asyncIterator]().next().then(() => performance.now());
  const writing = encoder.write(piece).catch(() => undefined); // rejects with TTS_CANCELLED when aborted below
  const ms = (await firstAt) - started;
  encoder.abort();
  await writing;
  return ms;
}

const PATHS: { format: AudioFormat; implementations: EncoderImplementation[] }[] = [
  { format: 'mp3', implementations: ['native', 'ffmpeg'] },
  { format: 'opus', implementations: ['native', 'ffmpeg'] },
  { format: 'flac', implementations: ['native', 'ffmpeg'] },
  { format: 'aac', implementations: ['native', 'ffmpeg'] },
];
const clips = Object.fromEntries([1, 5, 30].map((sec) => [sec, voiceLike(sec)])) as Record<number, PcmAudio>;
const load = { start: loadavg().map((x) => r(x, 2)), end: [] as number[] };
const out: Record<string, unknown> = {
  machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
  date: new Date().toISOString(),
  sampleRate: RATE,
  load,
  paths: { native: 'in process (libmp3lame, libopus + libogg, libFLAC, libavcodec aac)', ffmpeg: 'one ffmpeg process started per encoder (before issue 14)' },
};

// Warm-up: load the codec libraries and the page cache of ffmpeg.
for (const { format, implementations } of PATHS) for (const implementation of implementations) await encodeAudio(clips[1]!, format, undefined, { implementation });

// ---- whole clips ----
const whole: Record<string, unknown>[] = [];
for (const { format, implementations } of PATHS) {
  for (const sec of [1, 5, 30]) {
    const times = new Map<EncoderImplementation, number[]>(implementations.map((i) => [i, []]));
    for (let rep = 0; rep < REPS[sec]!; rep++) {
      for (const implementation of implementations) {
        const t = performance.now();
        await encodeAudio(clips[sec]!, format, undefined, { implementation });
        times.get(implementation)!.push(performance.now() - t);
      }
    }
    const row: Record<string, unknown> = { format, clip_sec: sec };
    for (const [implementation, ms] of times) row[`${implementation}_ms_p50`] = r(summary(ms).p50, 2);
    if (implementations.length === 2) row['speedup'] = r(summary(times.get('ffmpeg')!).p50 / summary(times.get('native')!).p50, 1);
    whole.push(row);
  }
}
out['whole_clip'] = whole;

// ---- first bytes of a stream ----
const piece = clips[1]!.samples;
const first: Record<string, unknown>[] = [];
const firstPaths: { format: AudioFormat; implementations: EncoderImplementation[] }[] = [{ format: 'pcm', implementations: ['native'] }, ...PATHS];
const firstTimes = new Map<string, number[]>();
for (let rep = 0; rep < FIRST_CHUNK_REPS; rep++) {
  for (const { format, implementations } of firstPaths) {
    for (const implementation of implementations) {
      const key = `${format}/${implementation}`;
      const ms = await firstChunkMs(format, implementation, piece);
      firstTimes.set(key, [...(firstTimes.get(key) ?? []), ms]);
    }
  }
}
const pcmFirst = summary(firstTimes.get('pcm/native')!).p50;
for (const [key, ms] of firstTimes) {
  const [format, implementation] = key.split('/');
  const s = summary(ms);
  first.push({ format, implementation: format === 'pcm' ? 'js' : implementation, first_chunk_ms_p50: r(s.p50, 2), first_chunk_ms_p95: r(s.p95, 2), vs_pcm_ms_p50: r(s.p50 - pcmFirst, 2) });
}
out['first_chunk'] = first;

// ---- the event loop while 30 s clips are encoded ----
const loop: Record<string, unknown>[] = [];
for (const { format, implementations } of PATHS) {
  for (const implementation of implementations) {
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    for (let rep = 0; rep < LOOP_REPS; rep++) await encodeAudio(clips[30]!, format, undefined, { implementation });
    histogram.disable();
    loop.push({ format, implementation, samples: histogram.count, delay_ms_p50: r(histogram.percentile(50) / 1e6, 2), delay_ms_p99: r(histogram.percentile(99) / 1e6, 2), delay_ms_max: r(histogram.max / 1e6, 2) });
  }
}
out['event_loop_30s'] = loop;
load.end = loadavg().map((x) => r(x, 2));

console.log(JSON.stringify(out, null, 2));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/encoders.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
