/**
 * VAD trimming of rendered audio (TTS_VAD_TRIM): a node started with it holds the Silero VAD found
 * by the default model lookup, and `trimEdges` cuts non-speech edges that the energy trim keeps
 * (noise above its threshold) without ever dropping audio the VAD hears no speech in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { trimSilence, type PcmAudio } from '../audio/index.js';
import { setLogSink } from '@tts/common';
import { loadNodeConfig } from '../config.js';
import { fliteDirectSynthesize } from '../engines/flite/index.js';
import { start, type RunningNode } from '../server.js';
import { planSynthesis, synthesizeWhole, trimEdges, type PipelineDeps } from './pipeline.js';

setLogSink(() => undefined);

/** Uniform noise of amplitude `level` (a seeded LCG, so runs are identical). */
function noise(samples: number, level: number): Float32Array {
  const out = new Float32Array(samples);
  let state = 12345;
  for (let i = 0; i < samples; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out[i] = ((state / 2 ** 32) * 2 - 1) * level;
  }
  return out;
}

function join(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('VAD trimming', () => {
  let node: RunningNode;
  let deps: PipelineDeps;
  let speech: PcmAudio;
  /** 0.5 s of noise, speech, 0.5 s of noise: the energy trim keeps the noise (it is above -45 dB of the speech peak). */
  let noisy: PcmAudio;

  before(async () => {
    node = await start({ host: '127.0.0.1', port: 0, nodeId: 'vad-trim-test', engines: ['flite'], defaultVoice: 'flite:slt', fliteWorkers: 1, warmup: false, vadTrim: true });
    deps = node.context.deps;
    speech = fliteDirectSynthesize('Please call Stella and ask her to bring these things.', 'slt');
    const half = Math.round(speech.sampleRate / 2);
    noisy = { samples: join(noise(half, 0.03), speech.samples, noise(half, 0.03)), sampleRate: speech.sampleRate };
  });

  after(async () => {
    await node.stop();
  });

  it('finds the Silero model by default and loads it when TTS_VAD_TRIM is on', () => {
    const config = loadNodeConfig({});
    assert.ok(config.vadModel?.endsWith('silero_vad.onnx'), `default model ${config.vadModel}`);
    assert.equal(config.vadTrim, false, 'off unless asked for');
    assert.throws(() => loadNodeConfig({ TTS_VAD_MODEL: '/nonexistent/vad.onnx' }), /TTS_VAD_MODEL/);
    assert.equal(loadNodeConfig({ TTS_VAD_MODEL: 'none' }).vadModel, undefined);
    assert.ok(deps.vad, 'the node holds a VAD');
  });

  it('cuts noise around speech that the energy trim keeps', async () => {
    const rate = noisy.sampleRate;
    const half = Math.round(rate / 2);
    const slack = Math.round(0.06 * rate);
    // Where the speech really is: first and last flite samples above -34 dBFS, offset by the noise.
    const loud = (i: number): boolean => Math.abs(speech.samples[i]!) >= 0.02;
    let first = 0;
    while (!loud(first)) first++;
    let last = speech.samples.length - 1;
    while (!loud(last)) last--;
    assert.equal(trimSilence(noisy).samples.length, noisy.samples.length, 'energy alone keeps the noise');
    const trimmedStart = await trimEdges(noisy, 'start', deps.vad);
    const start = trimmedStart.audio;
    const end = (await trimEdges(noisy, 'end', deps.vad)).audio;
    const cutAtStart = noisy.samples.length - start.samples.length;
    assert.equal(trimmedStart.cutStart, cutAtStart, 'trimEdges reports the samples it cut at the start');
    const keptToEnd = end.samples.length;
    // Much of each half second of noise goes (speech ends are held a little longer: the VAD's
    // hysteresis); no speech does (the VAD pads segments by 30 ms).
    assert.ok(cutAtStart >= half / 2 && cutAtStart <= half + first + slack, `start cut at ${cutAtStart} (noise ends at ${half}, speech starts at ${half + first})`);
    assert.ok(keptToEnd <= noisy.samples.length - half / 4 && keptToEnd >= half + last - slack, `end cut at ${keptToEnd} (speech ends at ${half + last}, noise starts at ${half + speech.samples.length})`);
    assert.deepEqual(start.samples.subarray(start.samples.length - 100), noisy.samples.subarray(noisy.samples.length - 100), 'start only: the end is kept');
    assert.deepEqual(end.samples.subarray(0, 100), noisy.samples.subarray(0, 100), 'end only: the start is kept');
    const both = (await trimEdges(noisy, 'both', deps.vad)).audio;
    assert.deepEqual(both.samples, noisy.samples.slice(cutAtStart, keptToEnd));
  });

  it('falls back to the energy trim where the VAD hears no speech', async () => {
    const hum: PcmAudio = { samples: noise(16_000, 0.2), sampleRate: 16_000 };
    assert.deepEqual((await trimEdges(hum, 'both', deps.vad)).audio, trimSilence(hum));
    assert.deepEqual((await trimEdges(speech, 'both', undefined)).audio, trimSilence(speech));
  });

  it('leaves the speech of a synthesized sentence intact', async () => {
    const job = {
      requestId: 'vad', text: 'Please call Stella and ask her to bring these things.', voice: 'flite:slt', engine: '', speed: 1,
      format: 'pcm' as const, sampleRate: 16_000, language: '', rawText: false,
    };
    const withVad = await synthesizeWhole(planSynthesis(job, deps), deps);
    const energyOnly: PipelineDeps = { registry: deps.registry, admission: deps.admission, maxChars: deps.maxChars };
    const without = await synthesizeWhole(planSynthesis(job, energyOnly), energyOnly);
    const delta = Math.abs(withVad.stats.audioSeconds - without.stats.audioSeconds);
    assert.ok(delta < 0.15, `VAD and energy trims of clean speech agree within 150 ms (${delta.toFixed(3)} s)`);
    assert.ok(withVad.stats.audioSeconds > 2, `${withVad.stats.audioSeconds} s of speech`);
  });
});
