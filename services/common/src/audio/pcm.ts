/** Mono audio as 32-bit float samples in [-1, 1]: the one in-memory representation between stages. */
export interface PcmAudio {
  readonly samples: Float32Array;
  /** Samples per second (Hz). */
  readonly sampleRate: number;
}

/** Duration of `audio` in seconds. */
export function durationSec(audio: PcmAudio): number {
  return audio.samples.length / audio.sampleRate;
}

/** Converts signed 16-bit samples to float samples in [-1, 1]. */
export function int16ToFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

/** Converts float samples to signed 16-bit, clamping to the representable range. */
export function floatToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    out[i] = s >= 1 ? 32767 : s <= -1 ? -32768 : Math.round(s * 32767);
  }
  return out;
}
