/**
 * Silero VAD on clips with known speech boundaries: silence + flite speech + silence. The speech
 * span of the flite part is measured from its samples (first/last sample above -34 dBFS).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { PcmAudio } from '../audio/pcm.js';
import { resample } from '../audio/resample.js';
import { decodeWav } from '../audio/wav.js';
import { createSileroVad, type SileroVad } from './silero-vad.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
// The model the set-up installed (scripts/setup.sh: `npm run models -- install --all` into data/models).
const modelsDir = path.join(repoRoot, 'data', 'models', 'analysis');
const MODEL = path.join(modelsDir, 'silero-vad', 'silero_vad.onnx');

let tmp = '';
let vad: SileroVad;
let speech: PcmAudio;
let speechSpan: { first: number; last: number };
let speechB: PcmAudio;

async function flite(text: string): Promise<PcmAudio> {
  const out = path.join(tmp, `${Math.random().toString(36).slice(2)}.wav`);
  await promisify(execFile)('flite', ['-voice', 'slt', '-t', text, '-o', out]);
  const wav = decodeWav(await readFile(out));
  return { samples: wav.samples, sampleRate: wav.sampleRate };
}

function activeSpan(audio: PcmAudio): { first: number; last: number } {
  const level = 0.02;
  const s = audio.samples;
  let first = 0;
  while (first < s.length && Math.abs(s[first]!) < level) first++;
  let last = s.length - 1;
  while (last > 0 && Math.abs(s[last]!) < level) last--;
  return { first: first / audio.sampleRate, last: last / audio.sampleRate };
}

/** Joins pieces (seconds of silence as numbers) at `rate`. */
function clip(rate: number, ...parts: (number | PcmAudio)[]): PcmAudio {
  const arrays = parts.map((p) => (typeof p === 'number' ? new Float32Array(Math.round(p * rate)) : p.samples));
  const samples = new Float32Array(arrays.reduce((n, a) => n + a.length, 0));
  let offset = 0;
  for (const a of arrays) {
    samples.set(a, offset);
    offset += a.length;
  }
  return { samples, sampleRate: rate };
}

function near(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual.toFixed(3)} s, expected ${expected.toFixed(3)} ± ${tolerance} s`);
}

before(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'vad-'));
  vad = await createSileroVad(MODEL);
  speech = await flite('Please call Stella and ask her to bring these things with her from the store.');
  speechB = await flite('The weather today is sunny.');
  speechSpan = activeSpan(speech);
});

after(async () => {
  await vad.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('Silero VAD', () => {
  it('finds the speech of silence + speech + silence within a window or two of its true edges', async () => {
    assert.equal(speech.sampleRate, 16000);
    const audio = clip(16000, 1.0, speech, 1.5);
    const segments = await vad.segments(audio);
    assert.ok(segments.length >= 1);
    near(segments[0]!.startSec, 1.0 + speechSpan.first, 0.1, 'speech start');
    near(segments[segments.length - 1]!.endSec, 1.0 + speechSpan.last, 0.15, 'speech end');
    const total = audio.samples.length / 16000;
    const ratio = await vad.speechRatio(audio);
    const expected = (speechSpan.last - speechSpan.first) / total;
    assert.ok(ratio > expected * 0.75 && ratio < expected + 0.1, `speech ratio ${ratio.toFixed(3)}, span ratio ${expected.toFixed(3)}`);
  });

  it('resamples other rates to 16 kHz and finds the same edges', async () => {
    const audio = resample(clip(16000, 0.7, speech, 1.0), 22050);
    const segments = await vad.segments(audio);
    near(segments[0]!.startSec, 0.7 + speechSpan.first, 0.1, 'speech start at 22.05 kHz');
    near(segments[segments.length - 1]!.endSec, 0.7 + speechSpan.last, 0.15, 'speech end at 22.05 kHz');
  });

  it('separates two utterances with a second of silence between them', async () => {
    const spanB = activeSpan(speechB);
    const audio = clip(16000, 0.5, speech, 1.0, speechB, 0.5);
    const segments = await vad.segments(audio);
    const gapStart = 0.5 + speechSpan.last;
    const gapEnd = 0.5 + speech.samples.length / 16000 + 1.0 + spanB.first;
    assert.ok(!segments.some((s) => s.startSec < gapEnd - 0.2 && s.endSec > gapStart + 0.2), `a segment covers the pause: ${JSON.stringify(segments)}`);
    near(segments[segments.length - 1]!.startSec, gapEnd, 0.1, 'second utterance start');
  });

  it('finds no speech in silence or faint noise', async () => {
    const silent = clip(16000, 2);
    assert.deepEqual(await vad.segments(silent), []);
    assert.equal(await vad.speechRatio(silent), 0);
    let seed = 7;
    const noise = new Float32Array(32000).map(() => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed / 2147483648 - 0.5) * 0.004;
    });
    assert.deepEqual(await vad.segments({ samples: noise, sampleRate: 16000 }), []);
    assert.equal(await vad.speechRatio({ samples: new Float32Array(0), sampleRate: 16000 }), 0);
  });

  it('trims non-speech edges of a clip', async () => {
    const audio = clip(16000, 1.2, speech, 2.0);
    const trimmed = await vad.trim(audio);
    near(trimmed.samples.length / 16000, speechSpan.last - speechSpan.first, 0.25, 'trimmed duration');
    assert.equal(trimmed.sampleRate, 16000);
  });

  it('gives one probability per 32 ms window, high on speech and low on silence', async () => {
    const audio = clip(16000, 1.0, speech);
    const probs = await vad.probabilities(audio);
    assert.equal(probs.length, Math.ceil(audio.samples.length / 512));
    assert.ok(Math.max(...probs.subarray(0, 25)) < 0.2, 'silence windows');
    assert.ok(Math.max(...probs.subarray(40)) > 0.9, 'speech windows');
  });
});
