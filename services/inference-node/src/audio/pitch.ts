/** Pitch shifting with ffmpeg's rubberband filter (duration kept, formants shifted with the pitch). */
import { TtsError } from '@tts/common';
import { filterAudio } from './media-process.js';
import type { PcmAudio } from './pcm.js';

/** Largest pitch change accepted, as a ratio either way (an octave). */
export const MAX_PITCH_RATIO = 2;

/** `audio` with its pitch multiplied by `ratio` (2^(semitones/12)), same duration. */
export async function pitchShift(audio: PcmAudio, ratio: number, signal?: AbortSignal): Promise<PcmAudio> {
  if (!Number.isFinite(ratio) || ratio < 1 / MAX_PITCH_RATIO || ratio > MAX_PITCH_RATIO) throw new TtsError('AUDIO_PROCESSING_FAILED', `Pitch ratio ${String(ratio)} is out of range.`);
  if (Math.abs(ratio - 1) < 1e-3 || audio.samples.length === 0) return audio;
  return filterAudio(audio, `rubberband=pitch=${ratio.toFixed(5)}`, signal, 'The pitch change failed.');
}
