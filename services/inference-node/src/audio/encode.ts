/**
 * Streaming audio encoders. wav, pcm, ulaw and alaw are written in JS; mp3, opus (Ogg), flac and aac (ADTS) are
 * encoded in this process by libmp3lame, libopus + libogg, libFLAC and libavcodec's aac encoder
 * (through koffi), with one ffmpeg process per encoder as the fallback when a library cannot be loaded.
 */
import { TtsError } from '@tts/common';
import { isAudioFormat, isSampleRateSupported, nearestSupportedRate, type AudioFormat } from '@tts/common/audio';
import { defaultBitrateKbps } from './bitrate.js';
import type { AudioEncoder, EncoderOptions, EncoderSettings } from './encoder-base.js';
import { FfmpegEncoder } from './ffmpeg-encoder.js';
import { JsEncoder, isJsFormat, rawBytesOf } from './js-encoder.js';
import { cancelledError } from './media-process.js';
import { NativeEncoder, nativeCodec } from './native-encoder.js';
import type { PcmAudio } from './pcm.js';
import { resample } from './resample.js';
import { encodeWav } from './wav.js';

export { defaultBitrateKbps } from './bitrate.js';
export type { AudioEncoder, EncoderImplementation, EncoderOptions, EncoderSettings } from './encoder-base.js';

/** Chunk size `encodeAudio` feeds an encoder with (samples). */
const ONE_SHOT_CHUNK = 1 << 16;

/**
 * Creates a streaming encoder at `sampleRate` (which must be a rate the format takes, see
 * `outputSampleRate`, else TtsError TTS_SAMPLE_RATE_INVALID). `streaming` true: wav gets the streaming
 * header, Ogg pages are short. Encoder failures reject the iterator with AUDIO_ENCODING_FAILED (the
 * codec's or ffmpeg's message is in `cause`, for logs, never shown to clients).
 */
export function createEncoder(format: AudioFormat, sampleRate: number, options: EncoderOptions = {}): AudioEncoder {
  if (!isAudioFormat(format)) throw new TtsError('TTS_FORMAT_UNSUPPORTED', `The audio format '${String(format)}' is not supported.`);
  if (!isSampleRateSupported(format, sampleRate)) throw new TtsError('TTS_SAMPLE_RATE_INVALID', `The sample rate ${String(sampleRate)} is not supported for ${format}.`);
  const { bitrateKbps } = options;
  if (bitrateKbps !== undefined && (!Number.isFinite(bitrateKbps) || bitrateKbps <= 0)) throw new RangeError(`bitrateKbps must be a positive number, got ${String(bitrateKbps)}`);
  if (isJsFormat(format)) return new JsEncoder(format, sampleRate, options);
  if (options.implementation === 'ffmpeg') return new FfmpegEncoder(format, sampleRate, options);
  const codec = nativeCodec(format);
  if (codec !== undefined) return new NativeEncoder(format, codec, sampleRate, { ...options, bitrateKbps: bitrateKbps ?? defaultBitrateKbps(format, sampleRate) });
  return new FfmpegEncoder(format, sampleRate, options);
}

/**
 * One-shot: encodes a whole clip to a whole file (wav has exact sizes). The clip is encoded at its own
 * rate when the format takes it, else resampled to the nearest rate the format takes (e.g. 22050 Hz → 24000 Hz for opus).
 */
export async function encodeAudio(audio: PcmAudio, format: AudioFormat, signal?: AbortSignal, options: EncoderSettings & Pick<EncoderOptions, 'bitrateKbps'> = {}): Promise<Buffer> {
  if (signal?.aborted === true) throw cancelledError();
  const rate = isSampleRateSupported(format, audio.sampleRate) ? audio.sampleRate : nearestSupportedRate(format, audio.sampleRate);
  const input = resample(audio, rate);
  if (format === 'wav') return encodeWav(input);
  if (format === 'pcm' || format === 'ulaw' || format === 'alaw') return rawBytesOf(format, input.samples);
  const encoder = createEncoder(format, rate, { streaming: false, ...options, ...(signal ? { signal } : {}) });
  const feed = (async () => {
    for (let at = 0; at < input.samples.length; at += ONE_SHOT_CHUNK) await encoder.write(input.samples.subarray(at, at + ONE_SHOT_CHUNK));
    await encoder.end();
  })();
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of encoder) chunks.push(chunk);
  } finally {
    encoder.abort(); // no-op when finished; frees the codec or stops ffmpeg when the loop failed
    await feed.catch(() => undefined); // its failure is the iterator's failure, already thrown
  }
  return Buffer.concat(chunks);
}
