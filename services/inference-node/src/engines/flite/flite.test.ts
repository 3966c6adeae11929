import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rms } from '../../audio/dsp.js';
import { durationSec } from '../../audio/pcm.js';
import { TtsError } from '@tts/common';
import type { EngineInput } from '../engine.js';
import { createFliteEngine, fliteDirectSynthesize, type FliteEngine } from './index.js';
import { isTtsError } from '@tts/common/testing';
import { HELLO, PARAGRAPH as THREE_SENTENCES, assertWordTimings, audioOf, crashWorkerInFlight, workerPoolOf } from '../testing.js';

const PARAGRAPH = `${THREE_SENTENCES} Nobody in the village remembered a night when the light had failed.`;

/** Correlation of the 10 ms RMS envelopes of two equally long clips. */
function envelopeCorrelation(a: Float32Array, b: Float32Array, frame = 160): number {
  const env = (x: Float32Array): number[] => {
    const out: number[] = [];
    for (let i = 0; i + frame <= x.length; i += frame) out.push(rms(x.subarray(i, i + frame)));
    return out;
  };
  const x = env(a);
  const y = env(b);
  const mean = (v: number[]): number => v.reduce((s, e) => s + e, 0) / v.length;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  x.forEach((xi, i) => {
    const dx = xi - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  });
  return sxy / Math.sqrt(sxx * syy);
}

describe('flite engine', () => {
  let engine: FliteEngine;

  before(async () => {
    engine = createFliteEngine({ workers: 3 });
    await engine.load();
  });

  after(async () => {
    await engine.close();
  });

  it('lists its four voices at 16 kHz', () => {
    const ids = engine.voices().map((v) => v.id);
    assert.deepEqual(ids, ['flite:slt', 'flite:rms', 'flite:awb', 'flite:kal16']);
    const slt = engine.voices()[0]!;
    assert.equal(slt.gender, 'female');
    assert.equal(slt.language, 'en-US');
    assert.ok(engine.voices().every((v) => v.sampleRate === 16_000 && v.engine === 'flite'));
    assert.equal(engine.concurrency, 3);
  });

  it('speaks a short text in every voice at the advertised rate', async () => {
    for (const v of engine.voices()) {
      const [out] = await engine.synthesize([{ text: HELLO, voice: v.id, speed: 1 }]);
      assert.ok(out);
      assert.equal(out.audio.sampleRate, v.sampleRate);
      assert.equal(out.speedApplied, true);
      const sec = durationSec(out.audio);
      assert.ok(sec > 1 && sec < 5, `${v.id}: ${sec} s`);
      assert.ok(rms(out.audio.samples) > 0.02, `${v.id}: rms ${rms(out.audio.samples)}`);
    }
  });

  it('applies speed natively: 2x gives about half the duration', async () => {
    const normal = await audioOf(engine, { text: HELLO, voice: 'flite:slt', speed: 1 });
    const [fast] = await engine.synthesize([{ text: HELLO, voice: 'flite:slt', speed: 2 }]);
    assert.ok(fast);
    assert.equal(fast.speedApplied, true);
    const ratio = durationSec(fast.audio) / durationSec(normal);
    assert.ok(ratio > 0.35 && ratio < 0.7, `ratio ${ratio}`);
  });

  it("reports each word's timing from flite's segments, as written, and the timings follow the speed", async () => {
    const text = 'In 1999, Dr. Smith paid $20 for 3 apples.';
    const [normal] = await engine.synthesize([{ text, voice: 'flite:slt', speed: 1 }]);
    const words = assertWordTimings(normal!, text.split(' '));
    const [fast] = await engine.synthesize([{ text, voice: 'flite:slt', speed: 2 }]);
    const fastWords = assertWordTimings(fast!, text.split(' '));
    const ratio = fastWords[fastWords.length - 1]!.end / words[words.length - 1]!.end;
    const audioRatio = durationSec(fast!.audio) / durationSec(normal!.audio);
    assert.ok(Math.abs(ratio - audioRatio) < 0.05, `words ${ratio} vs audio ${audioRatio}`);
  });

  it('leaves speeds outside its native range to the node', async () => {
    const normal = await audioOf(engine, { text: HELLO, voice: 'flite:kal16', speed: 1 });
    const [out] = await engine.synthesize([{ text: HELLO, voice: 'flite:kal16', speed: 4.5 }]);
    assert.ok(out);
    assert.equal(out.speedApplied, false);
    assert.equal(out.audio.samples.length, normal.samples.length);
  });

  it('is thread-safe: concurrent output matches a serial run on the main thread', async () => {
    const texts = [HELLO, 'The quick brown fox jumps over the lazy dog.', 'Concurrency is not parallelism, but it helps.'];
    const inputs: EngineInput[] = [];
    for (let rep = 0; rep < 2; rep++) {
      for (const text of texts) for (const v of ['slt', 'rms', 'awb', 'kal16']) inputs.push({ text, voice: `flite:${v}`, speed: rep === 0 ? 1 : 1.25 });
    }
    const outputs = await Promise.all(inputs.map((input) => engine.synthesize([input])));
    assert.equal(outputs.length, 24);
    inputs.forEach((input, i) => {
      const parallel = outputs[i]![0]!.audio.samples;
      const serial = fliteDirectSynthesize(input.text, input.voice, input.speed).samples;
      // Durations are deterministic; the clustergen voices add random noise excitation, the diphone
      // voice (kal16) is fully deterministic.
      assert.equal(parallel.length, serial.length, `${input.voice} "${input.text}" length`);
      if (input.voice === 'flite:kal16') assert.deepEqual(parallel, serial);
      else assert.ok(envelopeCorrelation(parallel, serial) > 0.95, `${input.voice} "${input.text}" envelope`);
    });
  });

  it('replaces a worker that dies mid-request; the next requests succeed', async () => {
    await assert.rejects(crashWorkerInFlight(workerPoolOf(engine)), isTtsError('TTS_ENGINE_FAILED'));
    const outs = await Promise.all(Array.from({ length: 6 }, () => audioOf(engine, { text: HELLO, voice: 'flite:rms', speed: 1 })));
    assert.ok(outs.every((a) => rms(a.samples) > 0.02));
    assert.equal(engine.voices().length, 4);
  });

  it('rejects a cancelled request before and while it waits', async () => {
    const aborted = AbortSignal.abort();
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'flite:slt', speed: 1, signal: aborted }]), isTtsError('TTS_CANCELLED'));
    // Fill every worker, then cancel a request waiting in the queue.
    const busy = Array.from({ length: engine.concurrency }, () => audioOf(engine, { text: PARAGRAPH, voice: 'flite:slt', speed: 1 }));
    const controller = new AbortController();
    const waiting = engine.synthesize([{ text: HELLO, voice: 'flite:slt', speed: 1, signal: controller.signal }]);
    controller.abort();
    await assert.rejects(waiting, isTtsError('TTS_CANCELLED'));
    assert.equal((await Promise.all(busy)).length, engine.concurrency);
  });

  it('rejects unknown voices, bad speeds and blank text with stable codes', async () => {
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'flite:nobody', speed: 1 }]), (err: unknown) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.code, 'TTS_VOICE_NOT_FOUND');
      assert.deepEqual(err.loc, ['body', 'voice']);
      return true;
    });
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'espeak:en-us', speed: 1 }]), isTtsError('TTS_VOICE_NOT_FOUND'));
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'flite:slt', speed: 0 }]), isTtsError('TTS_SPEED_OUT_OF_RANGE'));
    await assert.rejects(engine.synthesize([{ text: '  ', voice: 'flite:slt', speed: 1 }]), isTtsError('TTS_TEXT_EMPTY'));
    assert.throws(() => fliteDirectSynthesize(HELLO, 'nobody'), isTtsError('TTS_VOICE_NOT_FOUND'));
  });

  it('reports the real-time factor of a 60-word paragraph', async (t) => {
    const words = PARAGRAPH.split(/\s+/).length;
    let started = performance.now();
    const audio = await audioOf(engine, { text: PARAGRAPH, voice: 'flite:slt', speed: 1 });
    const engineRtf = (performance.now() - started) / 1000 / durationSec(audio);
    started = performance.now();
    const direct = fliteDirectSynthesize(PARAGRAPH, 'slt');
    const directRtf = (performance.now() - started) / 1000 / durationSec(direct);
    t.diagnostic(`flite:slt ${words} words, ${durationSec(audio).toFixed(1)} s audio: RTF engine ${engineRtf.toFixed(3)}, direct ${directRtf.toFixed(3)}`);
    assert.ok(durationSec(audio) > 10);
  });
});

describe('flite engine without its library', () => {
  it('load() rejects with a clear error', async () => {
    const engine = createFliteEngine({ workers: 1, library: '/nonexistent/libflite.so.1' });
    await assert.rejects(engine.load(), (err: unknown) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.code, 'TTS_ENGINE_UNAVAILABLE');
      assert.match(err.message, /cannot load \/nonexistent\/libflite\.so\.1/);
      return true;
    });
    assert.deepEqual(engine.voices(), []);
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'flite:slt', speed: 1 }]), isTtsError('TTS_ENGINE_UNAVAILABLE'));
    await engine.close();
  });
});
