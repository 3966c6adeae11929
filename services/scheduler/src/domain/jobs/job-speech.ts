/** The speech request of a stored job: what the dispatcher sends to a node and GetJob reports. */
import type { AudioFormat } from '@tts/common/audio';
import { encodingOf, lexiconMessages } from '@tts/common';
import type { SpeechSpec } from '@tts/proto/synthesis';
import type { JobSpecFields } from '../../data/jobs.js';

/**
 * The SpeechSpec of a stored job spec. `watermarkPayload` names the job's submitting request in the
 * provenance mark, as the submitter chose it (0, for jobs stored before it was kept, lets the node
 * derive one from the call's request id); `withReference` false
 * leaves a clone job's reference audio out (status reads). Every job asks for word timings: its
 * captions are served from them (an engine without timings of its own is force-aligned).
 */
export function speechOfStored(s: JobSpecFields, watermarkPayload = 0, withReference = true): SpeechSpec {
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
    watermarkPayload,
    clone: s.clone
      ? { referenceAudio: withReference ? Buffer.from(s.clone.audioBase64, 'base64') : Buffer.alloc(0), referenceFilename: s.clone.filename, referenceId: s.clone.referenceId }
      : undefined,
    wordTimings: true,
    // A job is encoded at its format's default bit rate (specOf refuses another).
    bitrateKbps: 0,
    lexicon: lexiconMessages(s.lexicon ?? []),
  };
}
