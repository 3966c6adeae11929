/** The speech request of a stored job: what the dispatcher sends to a node and GetJob reports. */
import type { AudioFormat } from '@tts/common/audio';
import { encodingOf } from '@tts/common';
import type { SpeechSpec } from '@tts/proto/synthesis';
import type { JobSpecFields } from '../../data/jobs.js';

/** The SpeechSpec of a stored job spec. */
export function speechOfStored(s: JobSpecFields): SpeechSpec {
  return {
    text: s.text,
    voice: s.voice,
    engine: s.engine,
    speed: s.speed,
    encoding: encodingOf(s.format as AudioFormat),
    sampleRate: s.sampleRate,
    language: s.language,
    instructions: s.instructions,
    rawText: s.rawText,
  };
}
