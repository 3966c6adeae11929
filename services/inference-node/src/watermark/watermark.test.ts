/**
 * The provenance watermark on real speech (flite): round trip at 16 and 24 kHz, level, streaming
 * equals one-shot, excerpts, gain, key rotation, and no detection without the mark or with another
 * key. Robustness to codecs and noise over hundreds of clips is measured in bench/watermark.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { decodeWav, resample, type PcmAudio } from '../audio/index.js';
import { codeBits, crc8 } from './pattern.js';
import { detectWatermark, embedWatermark, WatermarkEmbedder, PATTERN_RATE } from './index.js';
import { decodePayload } from './detect.js';

const KEY = { id: 1, secret: 'unit-test-secret-0123456789' };
const OTHER = { id: 2, secret: 'another-secret-abcdefghijkl' };

describe('provenance watermark', () => {
  let dir = '';
  let speech: PcmAudio;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tts-wm-'));
    const file = path.join(dir, 's.wav');
    await promisify(execFile)('flite', ['-voice', 'slt', '-t', 'Please call Stella and ask her to bring these things with her from the store. Six spoons of fresh snow peas, five thick slabs of blue cheese.', '-o', file]);
    const wav = decodeWav(await readFile(file));
    speech = { samples: wav.samples, sampleRate: wav.sampleRate };
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const at16k = (samples: Float32Array, rate: number): Float32Array => (rate === PATTERN_RATE ? samples : resample({ samples, sampleRate: rate }, PATTERN_RATE).samples);
  const snrDb = (clean: Float32Array, marked: Float32Array): number => {
    let s = 0;
    let n = 0;
    for (let i = 0; i < clean.length; i++) {
      s += clean[i]! ** 2;
      n += (marked[i]! - clean[i]!) ** 2;
    }
    return 10 * Math.log10(s / n);
  };

  it('marks speech at 16, 24, 22.05 and an odd 44.101 kHz at 35 dB SNR or more, and finds the payload and key again', () => {
    for (const audio of [speech, resample(speech, 24_000), resample(speech, 22_050), resample(speech, 44_101)]) {
      const marked = embedWatermark(audio.samples, { secret: KEY.secret, payload: 0xdeadbeef, sampleRate: audio.sampleRate });
      assert.equal(marked.length, audio.samples.length);
      assert.ok(snrDb(audio.samples, marked) >= 35, `SNR ${snrDb(audio.samples, marked).toFixed(1)} dB at ${audio.sampleRate} Hz`);
      const found = detectWatermark(at16k(marked, audio.sampleRate), [KEY]);
      assert.deepEqual([found.detected, found.payload, found.keyId], [true, 0xdeadbeef, 1], `${audio.sampleRate} Hz: score ${found.score}`);
      assert.ok(found.confidence > 0.99);
    }
  });

  it('finds nothing in unmarked speech, or with another key', () => {
    const clean = detectWatermark(speech.samples, [KEY, OTHER]);
    assert.equal(clean.detected, false, `score ${clean.score}`);
    assert.equal(clean.payload, null);
    const marked = embedWatermark(speech.samples, { secret: KEY.secret, payload: 7, sampleRate: speech.sampleRate });
    assert.equal(detectWatermark(marked, [OTHER]).detected, false);
  });

  it('marking in chunks of any size gives the same samples as marking at once (no look-ahead)', () => {
    const once = embedWatermark(speech.samples, { secret: KEY.secret, payload: 42, sampleRate: speech.sampleRate });
    const embedder = new WatermarkEmbedder({ secret: KEY.secret, payload: 42, sampleRate: speech.sampleRate });
    const pieces: Float32Array[] = [];
    let at = 0;
    for (const size of [1, 37, 512, 4000, 9, 16_000]) {
      pieces.push(embedder.process(speech.samples.subarray(at, at + size)));
      at += size;
    }
    pieces.push(embedder.process(speech.samples.subarray(at)));
    const joined = new Float32Array(speech.samples.length);
    let offset = 0;
    for (const p of pieces) {
      joined.set(p, offset);
      offset += p.length;
    }
    assert.deepEqual(joined, once);
  });

  it('finds the mark in a 1 s excerpt at any offset and after a gain change; key rotation reports the key', () => {
    const marked = embedWatermark(speech.samples, { secret: OTHER.secret, payload: 123456, sampleRate: speech.sampleRate });
    for (const offset of [3_000, 17_777]) {
      const crop = marked.subarray(offset, offset + PATTERN_RATE);
      const found = detectWatermark(crop, [KEY, OTHER]);
      assert.equal(found.detected, true, `offset ${offset}: score ${found.score}`);
      assert.equal(found.keyId, 2);
    }
    const quieter = marked.map((v) => v * 0.5);
    assert.equal(detectWatermark(quieter, [KEY, OTHER]).payload, 123456);
  });

  it('a released embedder cannot mark, and its pooled instance starts the next stream afresh', () => {
    const first = embedWatermark(speech.samples, { secret: KEY.secret, payload: 1, sampleRate: speech.sampleRate });
    const other = new WatermarkEmbedder({ secret: KEY.secret, payload: 2, sampleRate: 24_000 });
    other.process(speech.samples.subarray(0, 5000));
    other.release();
    assert.throws(() => other.process(speech.samples.subarray(0, 10)), /after release/);
    // The instance `other` left (its table, level and position) does not leak into the next stream.
    assert.deepEqual(embedWatermark(speech.samples, { secret: KEY.secret, payload: 1, sampleRate: speech.sampleRate }), first);
  });

  it('the committed marking module is marker.wat assembled (npm run wasm)', async () => {
    const script = fileURLToPath(new URL('../../../../scripts/gen-marker-wasm.mjs', import.meta.url));
    await promisify(execFile)(process.execPath, [script, '--check']);
  });

  it('code bits: 32 payload bits then a CRC-8 that a flipped bit breaks', () => {
    const bits = codeBits(0x80000001);
    assert.equal(bits.length, 40);
    assert.deepEqual([bits[0], bits[31]], [1, 1]);
    assert.notEqual(crc8(0x80000001), crc8(0x80000000));
  });

  it('payload decoding: the hard bits, else the flips of the least reliable bits; a strong wrong bit is never "corrected"', () => {
    const payload = 0x5eed1234;
    const softOf = (flipped: number[], weak: number[]): number[] =>
      codeBits(payload).map((b, i) => (flipped.includes(i) ? -1 : 1) * (b ? 1 : -1) * (weak.includes(i) ? 0.01 + 0.001 * i : 1 + 0.1 * i));
    assert.equal(decodePayload(softOf([], [])), payload);
    assert.equal(decodePayload(softOf([7], [7, 20, 33])), payload, 'one weak bit lost');
    assert.equal(decodePayload(softOf([35], [35, 2, 18])), payload, 'a weak check bit lost');
    assert.equal(decodePayload(softOf([3, 9], [3, 9, 30])), payload, 'the two weakest bits lost');
    assert.equal(decodePayload(softOf([12], [1, 2, 3])), null, 'a strong bit lost: not correctable, and no wrong payload');
  });
});
