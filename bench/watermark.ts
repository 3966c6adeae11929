/**
 * Provenance watermark benchmark (`npm run bench watermark`, about 3 minutes on 2 cores): real speech clips
 * (flite slt/rms/awb/kal16 and espeak-ng, 2-8 s, seeded random sentences), marked with a random
 * payload at the engines' own rates (16, 22.05, 24 and 48 kHz), then detected after each attack:
 * MP3 128 kb/s and Opus 32 kb/s (Debian's ffmpeg), resampling to 16 kHz, -6 dB, white noise at
 * 20 dB SNR, and a 1 s excerpt at a random offset. The same clips unmarked measure false
 * positives. Also: the mark's SNR, the cost of embedding against the engines' synthesis time, and
 * detection speed. Results: bench/results/watermark.json.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DETECTION_THRESHOLD, PATTERN_RATE, decodeWav, detectWatermark, embedWatermark, encodeWav, resample, type PcmAudio } from '@tts/inference-node/testing';
import { mkdirSync, writeFileSync } from 'node:fs';

const run = promisify(execFile);
const CLIPS = Number(process.env['BENCH_WATERMARK_CLIPS'] ?? 200);
const KEYS = [{ id: 1, secret: 'bench-key-one-0123456789abcdef' }, { id: 2, secret: 'bench-key-two-fedcba9876543210' }];
const WORDS = ('the quick brown fox jumps over a lazy dog please call stella ask her to bring these things with from store six spoons of fresh snow peas five thick '
  + 'slabs blue cheese and maybe snack for brother bob we also need small plastic snake big toy frog kids she can scoop into three red bags will go meet wednesday '
  + 'at train station weather today is sunny with light breeze morning news reported heavy rain across northern valley children played quietly in garden').split(' ');

let seed = 20261124;
const random = (): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
};
const gaussian = (): number => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());

const dir = await mkdtemp(path.join(tmpdir(), 'tts-bench-wm-'));
const ffmpeg = (args: string[]): Promise<unknown> => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
const load = async (file: string): Promise<PcmAudio> => {
  const w = decodeWav(await readFile(file));
  return { samples: w.samples, sampleRate: w.sampleRate };
};
const to16k = (a: PcmAudio): Float32Array => (a.sampleRate === PATTERN_RATE ? a.samples : resample(a, PATTERN_RATE).samples);

async function speechClip(i: number): Promise<PcmAudio> {
  const text = Array.from({ length: 6 + Math.floor(random() * 16) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const file = path.join(dir, `clip-${i}.wav`);
  if (i % 5 === 4) await run('espeak-ng', ['-v', 'en-us', '-w', file, text]);
  else await run('flite', ['-voice', ['slt', 'rms', 'awb', 'kal16'][i % 5]!, '-t', text, '-o', file]);
  const audio = await load(file);
  // Festival and piper voices run at 16 and 22.05 kHz; OpenAI clients get 24 kHz, studio formats 48 kHz.
  const rate = i % 6 === 0 ? 24_000 : i % 6 === 3 ? 48_000 : audio.sampleRate;
  return rate === audio.sampleRate ? audio : resample(audio, rate);
}

const attacks = ['none', 'mp3_128k', 'opus_32k', 'resample_16k', 'gain_-6db', 'noise_20db', 'crop_1s'] as const;
type Attack = (typeof attacks)[number];
const detected: Record<Attack, number> = Object.fromEntries(attacks.map((a) => [a, 0])) as Record<Attack, number>;
const payloadOk: Record<Attack, number> = Object.fromEntries(attacks.map((a) => [a, 0])) as Record<Attack, number>;
/** Payloads decoded but not the one embedded (a CRC collision): must stay near zero. */
const payloadWrong: Record<Attack, number> = Object.fromEntries(attacks.map((a) => [a, 0])) as Record<Attack, number>;
const minScore: Record<Attack, number> = Object.fromEntries(attacks.map((a) => [a, Infinity])) as Record<Attack, number>;
let falsePositives = 0;
let maxUnmarkedScore = 0;
const snrs: number[] = [];
let audioSec = 0;
let embedMs = 0;
let detectMs = 0;
let detectAudioSec = 0;
const clipsPerRate: Record<number, number> = {};

async function attacked(marked: PcmAudio, attack: Attack, i: number): Promise<Float32Array> {
  const wav = path.join(dir, `m-${i}.wav`);
  switch (attack) {
    case 'none':
    case 'resample_16k':
      return to16k(marked);
    case 'mp3_128k':
    case 'opus_32k': {
      await writeFile(wav, encodeWav(marked));
      const coded = path.join(dir, attack === 'mp3_128k' ? `m-${i}.mp3` : `m-${i}.ogg`);
      await ffmpeg(['-i', wav, ...(attack === 'mp3_128k' ? ['-c:a', 'libmp3lame', '-b:a', '128k'] : ['-c:a', 'libopus', '-b:a', '32k']), coded]);
      await ffmpeg(['-i', coded, path.join(dir, `d-${i}.wav`)]);
      return to16k(await load(path.join(dir, `d-${i}.wav`)));
    }
    case 'gain_-6db':
      return to16k(marked).map((v) => v * 10 ** (-6 / 20));
    case 'noise_20db': {
      const x = to16k(marked);
      let power = 0;
      for (const v of x) power += v * v;
      const sd = Math.sqrt(power / x.length / 100);
      return x.map((v) => v + sd * gaussian());
    }
    case 'crop_1s': {
      const x = to16k(marked);
      const offset = Math.floor(random() * Math.max(1, x.length - PATTERN_RATE));
      return x.slice(offset, offset + PATTERN_RATE);
    }
  }
}

for (let i = 0; i < CLIPS; i++) {
  const clip = await speechClip(i);
  clipsPerRate[clip.sampleRate] = (clipsPerRate[clip.sampleRate] ?? 0) + 1;
  const payload = Math.floor(random() * 2 ** 32) >>> 0;
  const key = KEYS[i % 2]!;
  const started = performance.now();
  const markedSamples = embedWatermark(clip.samples, { secret: key.secret, payload, sampleRate: clip.sampleRate });
  embedMs += performance.now() - started;
  audioSec += clip.samples.length / clip.sampleRate;
  let s = 0;
  let n = 0;
  for (let k = 0; k < clip.samples.length; k++) {
    s += clip.samples[k]! ** 2;
    n += (markedSamples[k]! - clip.samples[k]!) ** 2;
  }
  snrs.push(10 * Math.log10(s / n));
  const marked = { samples: markedSamples, sampleRate: clip.sampleRate };
  for (const attack of attacks) {
    const x = await attacked(marked, attack, i);
    const t = performance.now();
    const found = detectWatermark(x, KEYS);
    detectMs += performance.now() - t;
    detectAudioSec += x.length / PATTERN_RATE;
    if (found.detected && found.keyId === key.id) detected[attack]++;
    if (found.detected && found.payload === payload) payloadOk[attack]++;
    if (found.detected && found.payload !== null && found.payload !== payload) payloadWrong[attack]++;
    minScore[attack] = Math.min(minScore[attack], found.score);
  }
  const clean = detectWatermark(to16k(clip), KEYS);
  if (clean.detected) falsePositives++;
  maxUnmarkedScore = Math.max(maxUnmarkedScore, clean.score);
  const cleanCrop = to16k(clip).slice(0, PATTERN_RATE);
  const cropFound = detectWatermark(cleanCrop, KEYS);
  if (cropFound.detected) falsePositives++;
  maxUnmarkedScore = Math.max(maxUnmarkedScore, cropFound.score);
  if ((i + 1) % 25 === 0) console.log(`  ${i + 1}/${CLIPS} clips`);
}
await rm(dir, { recursive: true, force: true });

const pct = (k: number): number => Math.round((1000 * k) / CLIPS) / 10;
const sorted = [...snrs].sort((a, b) => a - b);
const result = {
  clips: CLIPS,
  unmarked_trials: 2 * CLIPS,
  audio_seconds: Math.round(audioSec),
  clips_per_rate_hz: clipsPerRate,
  threshold: DETECTION_THRESHOLD,
  detection_pct: Object.fromEntries(attacks.map((a) => [a, pct(detected[a])])),
  payload_correct_pct: Object.fromEntries(attacks.map((a) => [a, pct(payloadOk[a])])),
  payload_wrong: Object.fromEntries(attacks.map((a) => [a, payloadWrong[a]])),
  min_score: Object.fromEntries(attacks.map((a) => [a, Math.round(minScore[a] * 100) / 100])),
  false_positives: falsePositives,
  max_unmarked_score: Math.round(maxUnmarkedScore * 100) / 100,
  snr_db: { min: Math.round(sorted[0]! * 100) / 100, median: Math.round(sorted[Math.floor(sorted.length / 2)]! * 100) / 100 },
  embed_ms_per_audio_sec: Math.round((embedMs / audioSec) * 1000) / 1000,
  detect_ms_per_audio_sec: Math.round((detectMs / detectAudioSec) * 100) / 100,
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/watermark.json', import.meta.url), JSON.stringify(result, null, 2) + '\n');
