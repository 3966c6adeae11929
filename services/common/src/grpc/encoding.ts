/** Mapping between audio format names and the proto AudioEncoding enum. */
import { AudioEncoding } from '@tts/proto/synthesis';
import type { AudioFormat } from '../audio/format.js';

const TO_ENCODING: Readonly<Record<AudioFormat, AudioEncoding>> = {
  wav: AudioEncoding.AUDIO_ENCODING_WAV,
  pcm: AudioEncoding.AUDIO_ENCODING_PCM,
  mp3: AudioEncoding.AUDIO_ENCODING_MP3,
  opus: AudioEncoding.AUDIO_ENCODING_OPUS,
  aac: AudioEncoding.AUDIO_ENCODING_AAC,
  flac: AudioEncoding.AUDIO_ENCODING_FLAC,
  ulaw: AudioEncoding.AUDIO_ENCODING_MULAW,
  alaw: AudioEncoding.AUDIO_ENCODING_ALAW,
};

/** Proto encoding of a format. */
export function encodingOf(format: AudioFormat): AudioEncoding {
  return TO_ENCODING[format];
}

/** Format of a proto encoding (UNSPECIFIED = wav); undefined for unknown values. */
export function formatOf(encoding: AudioEncoding): AudioFormat | undefined {
  if (encoding === AudioEncoding.AUDIO_ENCODING_UNSPECIFIED) return 'wav';
  const hit = (Object.entries(TO_ENCODING) as [AudioFormat, AudioEncoding][]).find(([, e]) => e === encoding);
  return hit?.[0];
}
