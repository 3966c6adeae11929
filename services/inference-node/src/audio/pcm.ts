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

/** Converts float samples to signed 16-bit (x32768, the inverse of int16ToFloat), clamping to the representable range. */
export function floatToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = int16Of(samples[i]!);
  return out;
}

/** One sample as `floatToInt16` stores it: rounded, clamped to 16 bits, NaN as 0. */
export function int16Of(sample: number): number {
  const v = Math.round(sample * 32768);
  return v > 32767 ? 32767 : v < -32768 ? -32768 : v || 0;
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Encodes float samples as signed 16-bit little-endian bytes, scaled by 32768 and clamped (as ffmpeg
 * converts flt to s16), so `decodePcm16le(encodePcm16le(x))` returns 16-bit samples unchanged.
 */
export function encodePcm16le(samples: Float32Array): Buffer {
  const out = Buffer.allocUnsafeSlow(samples.length * 2);
  writePcm16le(samples, out, 0);
  return out;
}

/** Writes `samples` as signed 16-bit little-endian bytes into `target` from byte `offset` (as `encodePcm16le`). */
export function writePcm16le(samples: Float32Array, target: Buffer, offset: number): void {
  if (offset < 0 || offset + samples.length * 2 > target.length) throw new RangeError('writePcm16le: the samples do not fit in the target');
  const aligned = LITTLE_ENDIAN_HOST && (target.byteOffset + offset) % 2 === 0;
  const ints = aligned ? new Int16Array(target.buffer, target.byteOffset + offset, samples.length) : undefined;
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i]! * 32768);
    const s = v > 32767 ? 32767 : v < -32768 ? -32768 : v || 0; // `|| 0` maps NaN to silence
    if (ints) ints[i] = s;
    else target.writeInt16LE(s, offset + i * 2);
  }
}

/** Decodes signed 16-bit little-endian bytes to float samples (value / 32768); a trailing odd byte is ignored. */
export function decodePcm16le(bytes: Uint8Array): Float32Array {
  const count = bytes.length >> 1;
  const out = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 2);
  for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, true) / 32768;
  return out;
}

/** Encodes float samples as 32-bit float little-endian bytes (ffmpeg's `f32le`). */
export function encodeFloat32le(samples: Float32Array): Buffer {
  if (LITTLE_ENDIAN_HOST) return Buffer.from(samples.buffer.slice(samples.byteOffset, samples.byteOffset + samples.byteLength));
  const out = Buffer.allocUnsafe(samples.length * 4);
  for (let i = 0; i < samples.length; i++) out.writeFloatLE(samples[i]!, i * 4);
  return out;
}

/** Decodes 32-bit float little-endian bytes (ffmpeg's `f32le`); trailing bytes short of a sample are ignored. */
export function decodeFloat32le(bytes: Uint8Array): Float32Array {
  const count = bytes.length >> 2;
  const out = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 4);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
