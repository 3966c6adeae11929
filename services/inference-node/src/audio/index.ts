/**
 * The node's audio layer: the in-memory PCM representation, WAV, resampling, level/silence helpers,
 * time-stretch, streaming encoders, and ffmpeg-based decoding/probing of accepted containers within
 * MEDIA_LIMITS; format facts (names, MIME types, sample rates) come from `@tts/common/audio`. The node imports audio code through this module.
 */
export { type PcmAudio, durationSec, int16ToFloat, floatToInt16, encodePcm16le, decodePcm16le, encodeFloat32le, decodeFloat32le } from './pcm.js';
/** Format facts (names, MIME types, sample rates), shared by every process. */
export * from '@tts/common/audio';
export { type DecodedWav, type WavLayout, WAV_HEADER_BYTES, encodeWav, wavHeader, wavLayout, declaredWavFormat, decodeWav } from './wav.js';
export { type Resampler, resample, samplesAt, createResampler } from './resample.js';
export { type TrimSilenceOptions, rms, peak, silenceBounds, trimSilence, limitPeak, concatAudio, silence } from './dsp.js';
export { MIN_SPEED, MAX_SPEED, timeStretch } from './tempo.js';
export { MAX_PITCH_RATIO, pitchShift } from './pitch.js';
export { type G711Format, encodeG711, decodeG711 } from './g711.js';
export { type AudioEncoder, type EncoderImplementation, type EncoderOptions, type EncoderSettings, defaultBitrateKbps, createEncoder, encodeAudio } from './encode.js';
export { type AudioProbe, type AudioSource, type DecodeOptions, decodeWithFfmpeg, probeAudio } from './probe.js';
export { type MediaFormat, MEDIA_LIMITS, checkMediaFormat } from './media-input.js';
