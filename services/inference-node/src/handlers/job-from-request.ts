import type { SynthesizeRequest } from '@tts/proto/synthesis';
import { TtsError, formatOf, lexiconOfMessages } from '@tts/common';
import type { SynthesisJob } from '../domain/pipeline.js';

/**
 * Turns a gRPC request into a pipeline job. Throws TtsError for a request without `speech` (a
 * caller of a build before 0.6), an unknown encoding, or a lexicon that breaks the lexicon rules
 * (the LEXICON_* codes: a request may come from anywhere, so its lexicon is checked again here).
 */
export function jobFromRequest(req: SynthesizeRequest): SynthesisJob {
  const speech = req.speech;
  if (!speech) throw new TtsError('VALIDATION_FAILED', 'SynthesizeRequest.speech is required (a caller older than 0.6 sends the speech fields in the request itself: upgrade it).', { loc: ['speech'] });
  const format = formatOf(speech.encoding);
  if (!format) throw new TtsError('TTS_FORMAT_UNSUPPORTED', `Encoding ${speech.encoding} is not supported.`, { loc: ['speech', 'encoding'] });
  return {
    requestId: req.requestId,
    tenant: req.tenantId,
    tenantWeight: req.tenantWeight,
    text: speech.text,
    voice: speech.voice,
    engine: speech.engine,
    speed: speech.speed,
    format,
    sampleRate: speech.sampleRate,
    language: speech.language,
    rawText: speech.rawText,
    wordTimings: speech.wordTimings,
    // 0: the caller named no payload; the pipeline derives one from the request id with the node's key.
    ...(speech.watermarkPayload === 0 ? {} : { watermarkPayload: speech.watermarkPayload }),
    ...(speech.lexicon.length === 0 ? {} : { lexicon: lexiconOfMessages(speech.lexicon, ['speech', 'lexicon']) }),
  };
}

