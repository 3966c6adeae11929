import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concatAudio, limitPeak, peak, rms, silence, trimSilence } from './dsp.js';
import { concatAudio as concatFromIndex } from './index.js';
import { sine } from './testing.js';

const RATE = 16000;
const ms = (n: number): number => (n * RATE) / 1000;

/** 300 ms silence, 500 ms tone, 400 ms silence, with faint noise (about -70 dB) in the "silence". */
function paddedTone(): Float32Array {
  const samples = new Float32Array(ms(1200));
  for (let i = 0; i < samples.length; i++) samples[i] = 0.0003 * Math.sin(i * 1.7);
  samples.set(sine(440, RATE, 0.5, 0.8).samples, ms(300));
  return samples;
}

describe('rms and peak', () => {
  it('measure a sine and an empty clip', () => {
    const tone = sine(440, RATE, 1, 0.5).samples;
    assert.ok(Math.abs(rms(tone) - 0.5 / Math.SQRT2) < 1e-4);
    assert.ok(Math.abs(peak(tone) - 0.5) < 1e-3);
    assert.equal(peak(Float32Array.of(0.1, -0.7, 0.3)), Math.fround(0.7));
    assert.equal(rms(new Float32Array(0)), 0);
    assert.equal(peak(new Float32Array(0)), 0);
  });
});

describe('trimSilence', () => {
  it('trims both ends down to the default 80 ms pad', () => {
    const out = trimSilence({ samples: paddedTone(), sampleRate: RATE });
    // The tone's first and last samples above -45 dB of the peak lie within one period of its edges.
    assert.ok(Math.abs(out.samples.length - ms(500 + 160)) <= ms(3), `length ${out.samples.length}`);
    assert.ok(peak(out.samples.subarray(0, ms(75))) < 0.001, 'starts with the quiet pad');
    assert.ok(peak(out.samples.subarray(out.samples.length - ms(75))) < 0.001, 'ends with the quiet pad');
  });

  it('trims only the chosen edge (streaming: first chunk start, last chunk end)', () => {
    const audio = { samples: paddedTone(), sampleRate: RATE };
    const start = trimSilence(audio, { edges: 'start', padMs: 20 });
    assert.ok(Math.abs(start.samples.length - ms(20 + 500 + 400)) <= ms(2), `start-only length ${start.samples.length}`);
    const end = trimSilence(audio, { edges: 'end', padMs: 20 });
    assert.ok(Math.abs(end.samples.length - ms(300 + 500 + 20)) <= ms(2), `end-only length ${end.samples.length}`);
    assert.equal(trimSilence(audio, { edges: 'none' }), audio);
  });

  it('follows thresholdDb relative to the peak', () => {
    // A quiet 100 ms lead-in at -30 dB of the peak: kept at -45 dB, trimmed at -20 dB.
    const samples = new Float32Array(ms(600));
    samples.set(sine(300, RATE, 0.1, 0.8 * 10 ** (-30 / 20)).samples, 0);
    samples.set(sine(300, RATE, 0.5, 0.8).samples, ms(100));
    const audio = { samples, sampleRate: RATE };
    const kept = trimSilence(audio, { padMs: 0, edges: 'start' }).samples.length;
    assert.ok(samples.length - kept <= ms(1), `keeps the lead-in (trimmed ${samples.length - kept} samples at its zero crossing)`);
    assert.ok(Math.abs(trimSilence(audio, { padMs: 0, thresholdDb: -20, edges: 'start' }).samples.length - ms(500)) <= ms(2));
  });

  it('keeps the pad of an all-silent clip, and short silent clips whole', () => {
    const quiet = { samples: new Float32Array(ms(1000)), sampleRate: RATE };
    assert.equal(trimSilence(quiet).samples.length, ms(80));
    assert.equal(trimSilence(quiet, { padMs: 200 }).samples.length, ms(200));
    const short = { samples: new Float32Array(ms(50)), sampleRate: RATE };
    assert.equal(trimSilence(short).samples.length, ms(50));
  });

  it('returns the input when there is nothing to trim and rejects bad options', () => {
    const tone = sine(440, RATE, 0.2);
    assert.equal(trimSilence(tone), tone);
    assert.throws(() => trimSilence(tone, { padMs: -1 }), RangeError);
    assert.throws(() => trimSilence(tone, { thresholdDb: 3 }), RangeError);
  });
});

describe('limitPeak', () => {
  it('scales loud audio so no sample exceeds the ceiling, keeping the shape', () => {
    const loud = { samples: Float32Array.of(0.5, -1.6, 1.2, 0), sampleRate: RATE };
    const out = limitPeak(loud);
    assert.ok(peak(out.samples) <= 0.97, `peak ${peak(out.samples)}`);
    assert.ok(peak(out.samples) > 0.9699, 'uses the headroom');
    assert.ok(Math.abs(out.samples[0]! / out.samples[1]! - 0.5 / -1.6) < 1e-6);
    assert.equal(loud.samples[1], Math.fround(-1.6), 'input untouched');
  });

  it('never exceeds the ceiling whatever the float rounding', () => {
    for (let k = 0; k < 200; k++) {
      const top = 0.971 + k * 0.0137;
      const out = limitPeak({ samples: Float32Array.of(top, -top / 3), sampleRate: RATE }, 0.97);
      assert.ok(peak(out.samples) <= 0.97, `peak ${peak(out.samples)} for input peak ${top}`);
    }
  });

  it('leaves quieter audio untouched (same object) and honours a custom ceiling', () => {
    const quiet = sine(440, RATE, 0.1, 0.5);
    assert.equal(limitPeak(quiet), quiet);
    assert.ok(peak(limitPeak(quiet, 0.25).samples) <= 0.25);
    assert.throws(() => limitPeak(quiet, 0), RangeError);
  });
});

describe('concatAudio and silence', () => {
  it('joins clips with gaps between them only', () => {
    const a = { samples: Float32Array.of(0.1, 0.2), sampleRate: RATE };
    const b = { samples: Float32Array.of(0.3), sampleRate: RATE };
    const out = concatAudio([a, b, a], 0.125); // 2 samples of gap at 16 kHz
    assert.deepEqual(Array.from(out.samples), [0.1, 0.2, 0, 0, 0.3, 0, 0, 0.1, 0.2].map(Math.fround));
    assert.equal(out.sampleRate, RATE);
    assert.deepEqual(Array.from(concatFromIndex([a, b]).samples), [0.1, 0.2, 0.3].map(Math.fround));
  });

  it('rejects mixed rates and an empty list', () => {
    assert.throws(() => concatAudio([sine(1, 16000, 0.01), sine(1, 24000, 0.01)]), /resample first/);
    assert.throws(() => concatAudio([]), RangeError);
  });

  it('makes silence of the requested length', () => {
    const s = silence(24000, 250);
    assert.equal(s.samples.length, 6000);
    assert.equal(s.sampleRate, 24000);
    assert.equal(peak(s.samples), 0);
    assert.throws(() => silence(24000, -5), RangeError);
  });
});
