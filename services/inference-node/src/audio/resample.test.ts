import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rms } from './dsp.js';
import { cachedDesignWeights, createResampler, DESIGN_CACHE_MAX_WEIGHTS, resample, samplesAt } from './resample.js';
import { sine, toneAmplitude, zeroCrossingRate } from './testing.js';

const dB = (ratio: number): number => 20 * Math.log10(ratio);

/** Streams `samples` through a fresh resampler in chunks of the given sizes (cycled), then flushes. */
function streamed(samples: Float32Array, from: number, to: number, sizes: readonly number[]): Float32Array {
  const resampler = createResampler(from, to);
  const parts: Float32Array[] = [];
  for (let at = 0, k = 0; at < samples.length; k++) {
    const n = sizes[k % sizes.length]!;
    parts.push(resampler.process(samples.subarray(at, at + n)));
    at += n;
  }
  parts.push(resampler.flush());
  const out = new Float32Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('resample', () => {
  it('samplesAt gives a clip at the rate asked: its own samples (no copy) when it has that rate already', () => {
    const clip = sine(440, 16000, 0.1, 0.5);
    assert.equal(samplesAt(clip, 16000), clip.samples);
    const at16k = samplesAt(sine(440, 22050, 0.1, 0.5), 16000);
    assert.deepEqual(at16k, resample(sine(440, 22050, 0.1, 0.5), 16000).samples);
    assert.equal(at16k.length, 1600);
  });

  it('22050 → 24000 keeps a 1 kHz sine at its frequency and amplitude', () => {
    const out = resample(sine(1000, 22050, 1, 0.5), 24000);
    assert.equal(out.sampleRate, 24000);
    assert.equal(out.samples.length, 24000);
    assert.ok(Math.abs(dB(toneAmplitude(out, 1000) / 0.5)) < 0.01, `gain ${dB(toneAmplitude(out, 1000) / 0.5)} dB`);
    assert.ok(Math.abs(zeroCrossingRate(out) - 2000) < 5, `zero crossings ${zeroCrossingRate(out)}/s`);
    // Nothing but the tone: the residual after removing it is far below it.
    const ideal = sine(1000, 24000, 1, 0.5).samples;
    const residual = out.samples.map((v, i) => v - ideal[i]!).subarray(2400, 21600);
    assert.ok(dB(rms(residual) / rms(ideal)) < -80, `residual ${dB(rms(residual) / rms(ideal))} dB`);
  });

  it('48000 → 16000 suppresses a 10 kHz tone (above the new Nyquist) by far more than 40 dB', () => {
    const out = resample(sine(10000, 48000, 1, 0.5), 16000);
    assert.equal(out.samples.length, 16000);
    // 10 kHz would alias to 6 kHz; measure there and overall (away from the clip edges).
    assert.ok(dB(toneAmplitude(out, 6000) / 0.5) < -80, `alias ${dB(toneAmplitude(out, 6000) / 0.5)} dB`);
    assert.ok(dB(rms(out.samples.subarray(1600, 14400)) / (0.5 / Math.SQRT2)) < -40);
  });

  it('48000 → 16000 passes a 6 kHz tone (within the pass band) unchanged', () => {
    const out = resample(sine(6000, 48000, 0.5, 0.5), 16000);
    assert.ok(Math.abs(dB(toneAmplitude(out, 6000) / 0.5)) < 0.05);
  });

  it('handles ratios without a small common factor (44100 → 47999) through the interpolated kernel', () => {
    const out = resample(sine(1000, 44100, 0.5, 0.5), 47999);
    assert.equal(out.samples.length, Math.ceil((22050 * 47999) / 44100));
    assert.ok(Math.abs(dB(toneAmplitude(out, 1000) / 0.5)) < 0.01);
    const ideal = sine(1000, 47999, 0.5, 0.5).samples;
    const residual = out.samples.map((v, i) => v - ideal[i]!).subarray(2400, 21600);
    assert.ok(dB(rms(residual) / rms(ideal)) < -80, `residual ${dB(rms(residual) / rms(ideal))} dB`);
  });

  it('returns the same clip when the rate already matches, and rejects bad rates', () => {
    const clip = sine(440, 24000, 0.1);
    assert.equal(resample(clip, 24000), clip);
    assert.throws(() => resample(clip, 0), RangeError);
    assert.throws(() => createResampler(24000, 22050.5), RangeError);
    // Rates no audio has are refused before a filter is designed for them (a design grows with the ratio).
    for (const rate of [20_000_003, 80_000_001, 0xffffffff]) assert.throws(() => createResampler(rate, 16000), RangeError, String(rate));
  });

  it('keeps its cache of filter designs within a fixed number of weights, whatever rates it meets', () => {
    const clip = (rate: number): { samples: Float32Array; sampleRate: number } => ({ samples: new Float32Array(64), sampleRate: rate });
    // Odd high rates to 16 kHz: each design is an interpolated kernel of hundreds of thousands of weights.
    for (let rate = 191_999; rate > 191_999 - 40; rate -= 1) {
      resample(clip(rate), 16000);
      assert.ok(cachedDesignWeights() <= DESIGN_CACHE_MAX_WEIGHTS, `${cachedDesignWeights()} weights cached after ${rate} Hz`);
    }
    // A pair in use stays usable and correct after the cache has turned over.
    const out = resample(sine(1000, 22050, 0.5, 0.5), 24000);
    assert.ok(Math.abs(dB(toneAmplitude(out, 1000) / 0.5)) < 0.01);
  });

  it('handles empty and one-sample inputs', () => {
    assert.equal(resample({ samples: new Float32Array(0), sampleRate: 16000 }, 48000).samples.length, 0);
    const one = resample({ samples: Float32Array.of(0.5), sampleRate: 16000 }, 48000);
    assert.equal(one.samples.length, 3);
    assert.ok(one.samples[0]! > 0.4 && one.samples[0]! < 0.5, `impulse response at 0: ${one.samples[0]}`);
  });

  it('has unit gain at DC for every phase', () => {
    const out = resample({ samples: new Float32Array(2000).fill(0.5), sampleRate: 22050 }, 24000);
    for (let i = 200; i < out.samples.length - 200; i++) assert.ok(Math.abs(out.samples[i]! - 0.5) < 1e-6, `sample ${i}: ${out.samples[i]}`);
  });
});

describe('createResampler', () => {
  for (const [from, to] of [[22050, 24000], [48000, 16000], [24000, 44100], [44100, 47999]] as const) {
    it(`streams ${from} → ${to} identically to the one-shot result, whatever the chunk sizes`, () => {
      const input = sine(700, from, 0.5, 0.4).samples.map((v, i) => v + 0.1 * Math.sin(i * 0.37));
      const oneShot = resample({ samples: input, sampleRate: from }, to).samples;
      const chunked = streamed(input, from, to, [1, 7, 100, 1000, 4093, 3]);
      assert.equal(chunked.length, oneShot.length);
      let maxDiff = 0;
      for (let i = 0; i < oneShot.length; i++) maxDiff = Math.max(maxDiff, Math.abs(chunked[i]! - oneShot[i]!));
      assert.ok(maxDiff < 1e-6, `max difference ${maxDiff}`);
    });
  }

  it('starts over after flush', () => {
    const resampler = createResampler(16000, 24000);
    const input = sine(300, 16000, 0.2).samples;
    const first = [...resampler.process(input), ...resampler.flush()];
    const second = [...resampler.process(input), ...resampler.flush()];
    assert.deepEqual(second, first);
  });

  it('copies chunks when the rates match', () => {
    const resampler = createResampler(24000, 24000);
    const chunk = Float32Array.of(0.1, 0.2);
    const out = resampler.process(chunk);
    chunk[0] = 0.9;
    assert.deepEqual(Array.from(out), [Math.fround(0.1), Math.fround(0.2)]);
    assert.equal(resampler.flush().length, 0);
  });
});
