import type { SynthesizeRequest } from '@tts/proto/synthesis';
import { TtsError, formatOf } from '@tts/common';
import type { SynthesisJob } from '../domain/pipeline.js';

/** Turns a gRPC request into a pipeline job. Throws TtsError for an unknown encoding. */
export function jobFromRequest(req: SynthesizeRequest): SynthesisJob {
  const format = formatOf(req.encoding);
  if (!format) throw new TtsError('TTS_FORMAT_UNSUPPORTED', `Encoding ${req.encoding} is not supported.`, { loc: ['encoding'] });
  return {
    requestId: req.requestId,
    text: req.text,
    voice: req.voice,
    engine: req.engine,
    speed: req.speed,
    format,
    sampleRate: req.sampleRate,
    language: req.language,
    rawText: req.rawText,
  };
}
