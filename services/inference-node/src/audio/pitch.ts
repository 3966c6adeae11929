/** Pitch shifting with ffmpeg's rubberband filter (duration kept, formants shifted with the pitch). */
import { TtsError } from '@tts/common';
import { FFMPEG, FFMPEG_QUIET, runToBuffer } from './media-process.js';
import { decodeFloat32le, encodeFloat32le, type PcmAudio } from './pcm.js';

/** Largest pitch change accepted, as a ratio either way (an octave). */
export const MAX_PITCH_RATIO = 2;

/** `audio` with its pitch multiplied by `ratio` (2^(semitones/12)), same duration. */
export async function pitchShift(audio: PcmAudio, ratio: number, signal?: AbortSignal): Promise<PcmAudio> {
  if (!Number.isFinite(ratio) || ratio < 1 / MAX_PITCH_RATIO || ratio > MAX_PITCH_RATIO) throw new TtsError('AUDIO_PROCESSING_FAILED', `Pitch ratio ${String(ratio)} is out of range.`);
  if (Math.abs(ratio - 1) < 1e-3 || audio.samples.length === 0) return audio;
  const rate = String(audio.sampleRate);
  const args = [...FFMPEG_QUIET, '-f', 'f32le', '-ar', rate, '-ac', '1', '-i', 'pipe:0', '-af', `rubberband=pitch=${ratio.toFixed(5)}`, '-f', 'f32le', '-ar', rate, '-ac', '1', 'pipe:1'];
  let out: Buffer;
  try {
    out = await runToBuffer(FFMPEG, args, encodeFloat32le(audio.samples), signal);
  } catch (error) {
    if (error instanceof TtsError) throw error;
    throw new TtsError('AUDIO_PROCESSING_FAILED', 'The pitch change failed.', { cause: error });
  }
  return { samples: decodeFloat32le(out), sampleRate: audio.sampleRate };
}
