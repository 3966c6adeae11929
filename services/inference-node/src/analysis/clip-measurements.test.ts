/**
 * Clip measurements on their worker thread: the same answers as on the calling thread (real flite
 * speech of two voices), a pitch-only request, and a main thread left free while a minute of audio
 * is measured.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { concatAudio, decodeWav, resample } from '../audio/index.js';
import { ClipMeasurer, measureClip } from './clip-measurements.js';
import { measurePitch } from './measure.js';

describe('clip measurements on a worker thread', () => {
  let dir = '';
  let clip: Float32Array;
  const measurer = new ClipMeasurer();
  const speech = async (voice: string, text: string): Promise<Float32Array> => {
    const file = path.join(dir, `${voice}.wav`);
    await promisify(execFile)('flite', ['-voice', voice, '-t', text, '-o', file]);
    return resample(decodeWav(await readFile(file)), 16_000).samples;
  };
  const segments = [{ startSec: 0.1, endSec: 3.5 }, { startSec: 4, endSec: 8 }];

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tts-measure-'));
    const a = await speech('slt', 'Please call Stella and ask her to bring these things with her from the store.');
    const b = await speech('rms', 'The weather today is sunny with a light breeze and six spoons of fresh snow peas.');
    clip = concatAudio([{ samples: a, sampleRate: 16_000 }, { samples: b, sampleRate: 16_000 }]).samples;
  });
  after(async () => {
    await measurer.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers what the calling thread computes, and leaves the caller its samples', async () => {
    const req = { samples: clip, sampleRate: 16_000, segments };
    const here = measureClip(req);
    const there = await measurer.measure(req);
    assert.deepEqual(there, here);
    assert.ok(there.pitch.voicedFrames > 100, `${there.pitch.voicedFrames} voiced frames`);
    assert.equal(there.speakerCheck.speakers, 2, 'two flite voices');
    assert.equal(clip.length > 0, true, 'the samples were copied, not transferred');
    assert.deepEqual(await measurer.pitch(req), measurePitch(clip, 16_000, segments));
  });

  it('keeps the main thread free while a minute of audio is measured', async () => {
    const minute = new Float32Array(60 * 16_000);
    for (let at = 0; at < minute.length; at += clip.length) minute.set(clip.subarray(0, Math.min(clip.length, minute.length - at)), at);
    const long = [{ startSec: 0, endSec: 60 }];
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const measured = await measurer.measure({ samples: minute, sampleRate: 16_000, segments: long });
    const took = performance.now() - started;
    delay.disable();
    assert.ok(measured.pitch.voicedFrames > 1000);
    // The main thread's longest stall is a small part of the measurement (over a second of CPU on the calling thread).
    assert.ok(delay.max / 1e6 < took / 4, `longest stall ${(delay.max / 1e6).toFixed(0)} ms while measuring took ${took.toFixed(0)} ms`);
  });
});
