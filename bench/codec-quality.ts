/**
 * Shared method of the encoder-settings benches (opus-complexity, mp3-quality): 20 Harvard sentences
 * by flite slt (16 kHz) and espeak-ng en-us (24 kHz), the log-spectral distance of decoded audio to
 * its input, and the word error rate of audio through the Vosk recognizer.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger, setLogSink } from '@tts/common';
import { analysisForBench, decodeWav, encodeWav, resample } from '@tts/inference-node/testing';
import { r, wordEdits, words } from './support.js';

export const run = promisify(execFile);
/** Harvard sentences, lists 1 and 2. */
export const SENTENCES = [
  'The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.', "It's easy to tell the depth of a well.",
  'These days a chicken leg is a rare dish.', 'Rice is often served in round bowls.', 'The juice of lemons makes fine punch.',
  'The box was thrown beside the parked truck.', 'The hogs were fed chopped corn and garbage.', 'Four hours of steady work faced us.',
  'A large size in stockings is hard to sell.', 'The boy was there when the sun rose.', 'A rod is used to catch pink salmon.',
  'The source of the huge river is the clear spring.', 'Kick the ball straight and follow through.', 'Help the woman get back to her feet.',
  'A pot of tea helps to pass the evening.', 'Smoky fires lack flame and heat.', "The soft cushion broke the man's fall.",
  'The salt breeze came across from the sea.', 'The girl at the booth sold fifty bonds.',
];

/** The voices and the rates the node gives them. */
export const VOICES = [
  { voice: 'flite:slt', rate: 16000, render: (text: string, file: string) => run('flite', ['-voice', 'slt', '-t', text, '-o', file]) },
  { voice: 'espeak-ng en-us', rate: 24000, render: (text: string, file: string) => run('espeak-ng', ['-v', 'en-us', '-w', file, text]) },
] as const;
export type Voice = (typeof VOICES)[number];

/** One voice's rendered sentences at its rate, and the recognizer's errors on them. */
export interface VoiceInputs {
  readonly inputs: Float32Array[];
  readonly audioSec: number;
  readonly refWords: number;
  readonly inputWerPct: number;
}

/** A bench session: a scratch directory and the Vosk recognizer. */
export class CodecQualityBench {
  private constructor(
    readonly dir: string,
    private readonly analysis: Awaited<ReturnType<typeof analysisForBench>>,
  ) {}

  static async open(name: string): Promise<CodecQualityBench> {
    setLogSink(() => undefined);
    return new CodecQualityBench(await mkdtemp(path.join(tmpdir(), `tts-bench-${name}-`)), await analysisForBench(createLogger('bench')));
  }

  async close(): Promise<void> {
    await this.analysis.close();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Recognizer word errors on `samples` (at `rate`) against sentence `i`. */
  async wordErrors(samples: Float32Array, rate: number, i: number, name: string): Promise<number> {
    const file = path.join(this.dir, `${name}.wav`);
    writeFileSync(file, encodeWav(resample({ samples, sampleRate: rate }, 16000)));
    const t = await this.analysis.transcribe({ header: { requestId: 'bench', filename: `${name}.wav`, contentType: 'audio/wav', sizeBytes: 0, transcribe: true }, file, sizeBytes: (await stat(file)).size, remove: async () => undefined });
    return wordEdits(SENTENCES[i]!, t.text);
  }

  /** Encoded bytes (`ext` names the container) decoded by ffmpeg to mono floats at `rate`. */
  async decode(bytes: Buffer, ext: string, rate: number, name: string): Promise<Float32Array> {
    const file = path.join(this.dir, `${name}.${ext}`);
    writeFileSync(file, bytes);
    const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-ar', String(rate), '-ac', '1', '-f', 'f32le', '-'], { encoding: 'buffer', maxBuffer: 1 << 28 });
    return new Float32Array(stdout.buffer, stdout.byteOffset, stdout.length / 4);
  }

  /** The sentences by `v` at its rate, and the recognizer's WER on them. */
  async inputs(v: Voice): Promise<VoiceInputs> {
    const inputs: Float32Array[] = [];
    let errors = 0;
    let refWords = 0;
    for (const [i, sentence] of SENTENCES.entries()) {
      const file = path.join(this.dir, `src-${i}.wav`);
      await v.render(sentence, file);
      const samples = resample(decodeWav(await readFile(file)), v.rate).samples;
      inputs.push(samples);
      errors += await this.wordErrors(samples, v.rate, i, `ref-${i}`);
      refWords += words(sentence).length;
    }
    return { inputs, audioSec: inputs.reduce((n, x) => n + x.length, 0) / v.rate, refWords, inputWerPct: r((100 * errors) / refWords, 1) };
  }
}

/** Mean log-spectral distance (dB) over 0-7.5 kHz between two signals, 512-point Hann frames, hop 256, frames of `a` with energy only; bins floored 50 dB below the frame's peak. */
export function logSpectralDistance(a: Float32Array, b: Float32Array, rate: number): number {
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

/** Writes bench/results/<name>.json: the machine and its load, the date, and `fields`. */
export function writeResults(name: string, fields: Record<string, unknown>): void {
  const out = { machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg: loadavg().map((x) => r(x)) }, date: new Date().toISOString(), ...fields };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`./results/${name}.json`, import.meta.url), JSON.stringify(out, null, 2) + '\n');
}
