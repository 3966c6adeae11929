/** Pitch-preserving time-stretch (the `speed` parameter) through ffmpeg's atempo filter. */
import { SPEED_RANGE, TtsError } from '@tts/common';
import type { PcmAudio } from './pcm.js';
import { filterAudio } from './media-process.js';

/** Slowest speed accepted. */
export const MIN_SPEED = SPEED_RANGE.min;
/** Fastest speed accepted. */
export const MAX_SPEED = SPEED_RANGE.max;

/**
 * The atempo chain for `speed`: the fewest stages that each stay within 0.5..2.0, with equal factors
 * (atempo skips samples rather than blending them above 2.0, so 4.0 is two stages of 2.0).
 */
export function atempoFilter(speed: number): string {
  const stages = Math.max(1, Math.ceil(Math.abs(Math.log2(speed)) - 1e-9));
  const factor = speed ** (1 / stages);
  return Array.from({ length: stages }, () => `atempo=${factor.toFixed(6)}`).join(',');
}

/**
 * Pitch-preserving time-stretch by `speed` (0.25..4.0; 2.0 halves the duration) through ffmpeg's atempo,
 * streamed through stdin/stdout pipes as 32-bit float (no temp files). Speed 1 returns the input itself.
 * Out of range → TtsError TTS_SPEED_OUT_OF_RANGE; `signal` abort kills ffmpeg and rejects TTS_CANCELLED;
 * an ffmpeg failure rejects AUDIO_PROCESSING_FAILED (ffmpeg's stderr in `cause`).
 */
export async function timeStretch(audio: PcmAudio, speed: number, signal?: AbortSignal): Promise<PcmAudio> {
  if (!Number.isFinite(speed) || speed < MIN_SPEED || speed > MAX_SPEED) {
    throw new TtsError('TTS_SPEED_OUT_OF_RANGE', `The speed ${String(speed)} is outside ${MIN_SPEED} to ${MAX_SPEED}.`);
  }
  if (signal?.aborted === true) throw new TtsError('TTS_CANCELLED');
  if (speed === 1 || audio.samples.length === 0) return audio;
  return filterAudio(audio, atempoFilter(speed), signal);
}
