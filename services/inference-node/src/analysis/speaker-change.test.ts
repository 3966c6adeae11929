/**
 * The more-than-one-speaker check on real speech (flite voices, no VAD: the energy gate alone):
 * one voice over two sentences stays one speaker, two voices are two, and too little speech
 * compares nothing. The rates over many voices are in bench/reference.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { concatAudio, decodeWav, resample } from '../audio/index.js';
import { detectSpeakerChange, SPEAKER_CHECK } from './speaker-change.js';

describe('speaker-change check', () => {
  let dir = '';
  const speech = async (voice: string, text: string): Promise<Float32Array> => {
    const file = path.join(dir, `${voice}-${text.length}.wav`);
    await promisify(execFile)('flite', ['-voice', voice, '-t', text, '-o', file]);
    const wav = decodeWav(await readFile(file));
    return resample({ samples: wav.samples, sampleRate: wav.sampleRate }, 16_000).samples;
  };
  const join = (a: Float32Array, b: Float32Array): Float32Array => concatAudio([{ samples: a, sampleRate: 16_000 }, { samples: b, sampleRate: 16_000 }]).samples;
  const FIRST = 'The weather today is sunny with a light breeze from the west.';
  const SECOND = 'Children played quietly in the garden while their parents talked.';

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tts-spk-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('one voice over two sentences is one speaker; two voices are two', async () => {
    const slt = join(await speech('slt', FIRST), await speech('slt', SECOND));
    const one = detectSpeakerChange(slt, []);
    assert.ok(one.windows >= 3, `${one.windows} windows`);
    assert.equal(one.speakers, 1, `score ${one.score}`);
    assert.ok(one.score < SPEAKER_CHECK.threshold);

    const two = detectSpeakerChange(join(await speech('slt', FIRST), await speech('rms', SECOND)), []);
    assert.equal(two.speakers, 2, `score ${two.score}`);
    assert.ok(two.score > one.score + 1, `${two.score} vs ${one.score}`);
  });

  it('compares nothing in silence or in under 3 s of speech', async () => {
    assert.deepEqual(detectSpeakerChange(new Float32Array(16_000 * 5), []), { windows: 0, score: 0, speakers: 1 });
    const short = await speech('slt', 'Hello there.');
    const found = detectSpeakerChange(short, []);
    assert.ok(found.windows <= 1, `${found.windows} windows`);
    assert.deepEqual([found.score, found.speakers], [0, 1]);
  });

  it('only frames inside the speech segments count', async () => {
    const slt = join(await speech('slt', FIRST), await speech('slt', SECOND));
    const clip = join(slt, await speech('rms', FIRST));
    assert.equal(detectSpeakerChange(clip, []).speakers, 2);
    const sltOnly = detectSpeakerChange(clip, [{ startSec: 0, endSec: slt.length / 16_000 }]);
    assert.ok(sltOnly.windows >= 3, `${sltOnly.windows} windows`);
    assert.equal(sltOnly.speakers, 1, `score ${sltOnly.score}`);
  });
});
