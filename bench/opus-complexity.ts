/**
 * Opus complexity: what libopus's complexity setting costs and buys on the platform's speech, at
 * the rates and bit rates the node uses by default (flite slt at 16 kHz, 32 kbit/s; espeak-ng at
 * 24 kHz, 64 kbit/s). For each complexity: CPU time per second of audio (the encoding session as
 * the node runs it, headers and Ogg pages included), the bit rate VBR spent, the log-spectral
 * distance of the decoded audio to the input (0-7.5 kHz, dB), and the word error rate of the
 * decoded audio through the Vosk recognizer (the input's own for scale). 20 Harvard sentences.
 *   npm run bench opus-complexity
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger, setLogSink } from '@tts/common';
import { analysisForBench, decodeWav, defaultBitrateKbps, encodeWav, openOggOpusCodec, resample, OPUS_COMPLEXITY } from '@tts/inference-node/testing';
import { r, wordEdits, words } from './support.js';

setLogSink(() => undefined);
const run = promisify(execFile);
/** Harvard sentences, lists 1 and 2. */
const SENTENCES = [
  'The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.', "It's easy to tell the depth of a well.",
  'These days a chicken leg is a rare dish.', 'Rice is often served in round bowls.', 'The juice of lemons makes fine punch.',
  'The box was thrown beside the parked truck.', 'The hogs were fed chopped corn and garbage.', 'Four hours of steady work faced us.',
  'A large size in stockings is hard to sell.', 'The boy was there when the sun rose.', 'A rod is used to catch pink salmon.',
  'The source of the huge river is the clear spring.', 'Kick the ball straight and follow through.', 'Help the woman get back to her feet.',
  'A pot of tea helps to pass the evening.', 'Smoky fires lack flame and heat.', "The soft cushion broke the man's fall.",
  'The salt breeze came across from the sea.', 'The girl at the booth sold fifty bonds.',
];
const COMPLEXITIES = [10, 7, OPUS_COMPLEXITY, 4];
/** Encodings per sentence for the CPU figure. */
const REPEATS = 3;

const dir = await mkdtemp(path.join(tmpdir(), 'tts-bench-opus-'));
const analysis = await analysisForBench(createLogger('bench'));
const codec = openOggOpusCodec();

/** Transcript of 16-bit WAV bytes. */
async function transcribe(wav: Buffer, name: string): Promise<string> {
  const file = path.join(dir, `${name}.wav`);
  writeFileSync(file, wav);
  const t = await analysis.transcribe({ header: { requestId: 'bench', filename: `${name}.wav`, contentType: 'audio/wav', sizeBytes: 0, transcribe: true }, file, sizeBytes: (await stat(file)).size, remove: async () => undefined });
  return t.text;
}

/** Ogg Opus bytes decoded by ffmpeg at `rate`. */
async function decodeOpus(ogg: Buffer, rate: number, name: string): Promise<Float32Array> {
  const file = path.join(dir, `${name}.ogg`);
  writeFileSync(file, ogg);
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-ar', String(rate), '-ac', '1', '-f', 'f32le', '-'], { encoding: 'buffer', maxBuffer: 1 << 28 });
  return new Float32Array(stdout.buffer, stdout.byteOffset, stdout.length / 4);
}

/** Mean log-spectral distance (dB) over 0-7.5 kHz between two signals, 512-point Hann frames, hop 256, frames of `a` with energy only; bins floored 50 dB below the frame's peak. */
function logSpectralDistance(a: Float32Array, b: Float32Array, rate: number): number {
  const N = 512;
  const bins = Math.floor((7500 / rate) * N);
  const cos = Float64Array.from({ length: N * bins }, (_, x) => Math.cos((2 * Math.PI * (1 + Math.floor(x / N)) * (x % N)) / N) * (0.5 - 0.5 * Math.cos((2 * Math.PI * (x % N)) / N)));
  const sin = Float64Array.from({ length: N * bins }, (_, x) => Math.sin((2 * Math.PI * (1 + Math.floor(x / N)) * (x % N)) / N) * (0.5 - 0.5 * Math.cos((2 * Math.PI * (x % N)) / N)));
  const power = (s: Float32Array, at: number, k: number): number => {
    let re = 0;
    let im = 0;
    for (let i = 0; i < N; i++) {
      re += s[at + i]! * cos[k * N + i]!;
      im += s[at + i]! * sin[k * N + i]!;
    }
    return re * re + im * im;
  };
  let total = 0;
  let frames = 0;
  for (let at = 0; at + N <= Math.min(a.length, b.length); at += N / 2) {
    let energy = 0;
    for (let i = 0; i < N; i++) energy += a[at + i]! ** 2;
    if (energy < 1e-4) continue;
    const pa = Array.from({ length: bins }, (_, k) => power(a, at, k));
    const pb = Array.from({ length: bins }, (_, k) => power(b, at, k));
    const floor = Math.max(...pa) * 1e-5;
    let d = 0;
    for (let k = 0; k < bins; k++) d += (10 * Math.log10(Math.max(pa[k]!, floor) / Math.max(pb[k]!, floor))) ** 2;
    total += Math.sqrt(d / bins);
    frames++;
  }
  return total / frames;
}

const voices = [
  { voice: 'flite:slt', rate: 16000, render: (text: string, file: string) => run('flite', ['-voice', 'slt', '-t', text, '-o', file]) },
  { voice: 'espeak-ng en-us', rate: 24000, render: (text: string, file: string) => run('espeak-ng', ['-v', 'en-us', '-w', file, text]) },
];
const results: Record<string, unknown>[] = [];
try {
  for (const v of voices) {
    const bitrateKbps = defaultBitrateKbps('opus', v.rate);
    const inputs: Float32Array[] = [];
    let refErrors = 0;
    let refWords = 0;
    for (const [i, sentence] of SENTENCES.entries()) {
      const file = path.join(dir, `src-${i}.wav`);
      await v.render(sentence, file);
      const wav = decodeWav(await readFile(file));
      const samples = resample(wav, v.rate).samples;
      inputs.push(samples);
      refErrors += wordEdits(sentence, await transcribe(encodeWav(resample({ samples, sampleRate: v.rate }, 16000)), `ref-${i}`));
      refWords += words(sentence).length;
    }
    const audioSec = inputs.reduce((n, x) => n + x.length, 0) / v.rate;
    const row: Record<string, unknown> = { voice: v.voice, rate: v.rate, bitrate_kbps: bitrateKbps, audio_sec: r(audioSec), input_wer_pct: r((100 * refErrors) / refWords, 1), complexities: [] as unknown[] };
    for (const complexity of COMPLEXITIES) {
      const encodeOnce = (x: Float32Array): Buffer => {
        const s = codec.open({ sampleRate: v.rate, bitrateKbps, streaming: false, complexity });
        try {
          return Buffer.concat([s.encode(x), s.finish()]);
        } finally {
          s.close();
        }
      };
      for (const x of inputs) encodeOnce(x); // warm-up
      const cpu = process.cpuUsage();
      let bytes = 0;
      for (let k = 0; k < REPEATS; k++) for (const x of inputs) bytes += encodeOnce(x).length;
      const used = process.cpuUsage(cpu);
      let lsd = 0;
      let errors = 0;
      for (const [i, x] of inputs.entries()) {
        const decoded = await decodeOpus(encodeOnce(x), v.rate, `c${complexity}-${i}`);
        lsd += logSpectralDistance(x, decoded, v.rate);
        errors += wordEdits(SENTENCES[i]!, await transcribe(encodeWav(resample({ samples: decoded, sampleRate: v.rate }, 16000)), `c${complexity}-${i}`));
      }
      const c = {
        complexity,
        cpu_ms_per_audio_sec: r((used.user + used.system) / 1000 / (REPEATS * audioSec)),
        kbps: r((bytes * 8) / 1000 / (REPEATS * audioSec), 1),
        lsd_db: r(lsd / inputs.length, 3),
        wer_pct: r((100 * errors) / refWords, 1),
      };
      (row['complexities'] as unknown[]).push(c);
      console.log(JSON.stringify({ voice: v.voice, ...c }));
    }
    results.push(row);
  }
} finally {
  await analysis.close();
  await rm(dir, { recursive: true, force: true });
}
const out = { machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg: loadavg().map((x) => r(x)) }, date: new Date().toISOString(), default_complexity: OPUS_COMPLEXITY, results };
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/opus-complexity.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
