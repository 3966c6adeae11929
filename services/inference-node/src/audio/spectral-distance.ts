/**
 * How differently two clips sound, for tests that must tell two pronunciations apart when an engine
 * does not render the same input to the same samples (espeak-ng's pitch flutter carries on from
 * call to call): log band energies every 10 ms (25 ms Hann frames, 24 bands from 150 Hz to 4.5 kHz,
 * floored 40 dB under the clip's loudest band), aligned by dynamic time warping. Renders of one
 * input measure about 0.25 on espeak-ng; a different vowel in one word of a sentence, 0.6 or more.
 */
import type { PcmAudio } from './pcm.js';

const BANDS = Array.from({ length: 24 }, (_, i) => 150 * Math.pow(4500 / 150, i / 23));

/** Log10 band energies per frame (Goertzel filters on Hann-windowed frames). */
function bandEnergies(audio: PcmAudio): Float64Array[] {
  const rate = audio.sampleRate;
  const frame = Math.round(0.025 * rate);
  const hop = Math.round(0.01 * rate);
  const window = Float64Array.from({ length: frame }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / frame));
  const frames: Float64Array[] = [];
  let loudest = 0;
  for (let at = 0; at + frame <= audio.samples.length; at += hop) {
    const energies = new Float64Array(BANDS.length);
    BANDS.forEach((hz, k) => {
      const w = 2 * Math.cos((2 * Math.PI * hz) / rate);
      let s1 = 0;
      let s2 = 0;
      for (let i = 0; i < frame; i++) {
        const s0 = audio.samples[at + i]! * window[i]! + w * s1 - s2;
        s2 = s1;
        s1 = s0;
      }
      energies[k] = s1 * s1 + s2 * s2 - w * s1 * s2;
      loudest = Math.max(loudest, energies[k]!);
    });
    frames.push(energies);
  }
  const floor = Math.max(loudest * 1e-4, 1e-12);
  return frames.map((f) => f.map((e) => Math.log10(Math.max(e, floor))));
}

/** The spectral distance of two clips of one sample rate (0 = alike; see the module comment for scale). */
export function spectralDistance(a: PcmAudio, b: PcmAudio): number {
  const x = bandEnergies(a);
  const y = bandEnergies(b);
  if (x.length === 0 || y.length === 0) return x.length === y.length ? 0 : Number.POSITIVE_INFINITY;
  let previous = new Float64Array(y.length + 1).fill(Number.POSITIVE_INFINITY);
  previous[0] = 0;
  for (let i = 1; i <= x.length; i++) {
    const current = new Float64Array(y.length + 1).fill(Number.POSITIVE_INFINITY);
    for (let j = 1; j <= y.length; j++) {
      let d = 0;
      for (let k = 0; k < BANDS.length; k++) d += (x[i - 1]![k]! - y[j - 1]![k]!) ** 2;
      current[j] = Math.sqrt(d) + Math.min(previous[j]!, previous[j - 1]!, current[j - 1]!);
    }
    previous = current;
  }
  return previous[y.length]! / (x.length + y.length);
}
