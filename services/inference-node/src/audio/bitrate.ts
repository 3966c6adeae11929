/** Default bit rates of the lossy formats, shared by the in-process and the ffmpeg encoders. */
import type { AudioFormat } from '@tts/common/audio';

/** Bit rate used when none is given: generous for speech at each codec's rate class (kbit/s). */
export function defaultBitrateKbps(format: AudioFormat, sampleRate: number): number {
  switch (format) {
    case 'mp3':
      return sampleRate >= 32000 ? 128 : sampleRate >= 16000 ? 96 : 48;
    case 'aac':
      return sampleRate >= 32000 ? 128 : sampleRate >= 16000 ? 96 : 32;
    case 'opus':
      return sampleRate >= 24000 ? 64 : 32;
    default:
      return 0;
  }
}
