import type { AudioFormat } from '@tts/common/audio';
import { TtsError } from '@tts/common';
import { engineOfModel, resolveClientVoice } from '../domain/voices.js';
import { pipeAudio, pipeSse, setVoiceHeaders, synthesizeRequestOf } from '../domain/speech.js';
import type { FieldNames } from '../domain/synthesis.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../operation.js';

interface SpeechBody {
  model: string;
  input: string;
  voice: string;
  response_format?: AudioFormat;
  speed?: number;
  instructions?: string;
  stream_format?: 'audio' | 'sse';
  sample_rate?: number;
}

const FIELDS: FieldNames = { text: 'input', voice: 'voice', engine: 'model', speed: 'speed', encoding: 'response_format', sampleRate: 'sample_rate' };

/** POST /v1/audio/speech: OpenAI-compatible, streamed as sentences are ready. */
export const createSpeech: OperationHandler = async ({ req, res, deps, requestId, signal }) => {
  const body = req.body as SpeechBody;
  if (body.input.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', 'input is empty or only white space.', { loc: ['body', 'input'] });
  const snap = await deps.cluster.snapshot();
  const engine = engineOfModel(body.model, snap.knownEngines);
  const voice = resolveClientVoice(body.voice, engine, snap.voices, deps.config.defaultVoice);
  const caller = callerOf(res);
  const request = synthesizeRequestOf({
    requestId,
    tenantId: caller.method === 'api_key' || caller.method === 'challenge' ? caller.subject : '',
    text: body.input,
    voice,
    engine,
    speed: body.speed ?? 1,
    format: body.response_format ?? 'mp3',
    sampleRate: body.sample_rate ?? 0,
    language: '',
    rawText: false,
    instructions: body.instructions ?? '',
  });
  const metered = { endpoint: 'POST /v1/audio/speech', requestId, characters: body.input.length, textField: 'input', mode: null, consentConfirmed: null };
  await deps.metering.run(res, caller, metered, async () => {
    const stream = await deps.gateway.stream(request, FIELDS, signal);
    setVoiceHeaders(res, { voice: stream.info.voice, engine: stream.info.engine, nodeId: stream.nodeId, sampleRate: stream.info.sampleRate });
    const metrics = body.stream_format === 'sse' ? await pipeSse(stream, res, signal) : await pipeAudio(stream, res, signal);
    if (!metrics) throw new TtsError('TTS_CANCELLED', 'The client went away before the audio was complete.');
    return metrics.audioSeconds;
  });
};
