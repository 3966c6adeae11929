import { TtsError } from '../../../services/common/src/errors/tts-error.js';
import type { AudioFormat } from '../../../services/common/src/audio/index.js';
import { platformVoice, setVoiceHeaders, synthesizeRequestOf } from '../domain/speech.js';
import type { FieldNames } from '../domain/synthesis.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../operation.js';

/** Body of POST /api/tts (TtsRequest); also the body of POST /api/jobs/tts. */
export interface TtsBody {
  text: string;
  voice?: string;
  mode?: 'auto' | 'preset';
  format?: AudioFormat;
  consent_confirmed?: boolean;
  speed?: number;
  sample_rate?: number;
  engine?: string;
  language?: string;
  normalize?: boolean;
}

const FIELDS: FieldNames = { text: 'text', voice: 'voice', engine: 'engine', speed: 'speed', encoding: 'format', sampleRate: 'sample_rate', language: 'language' };

/** POST /api/tts: whole-file synthesis. */
export const ttsSynthesize: OperationHandler = async ({ req, res, deps, requestId, signal }) => {
  const body = req.body as TtsBody;
  if (body.text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', 'text is empty or only white space.', { loc: ['body', 'text'] });
  const engine = body.engine ?? '';
  const voice = await platformVoice(deps.cluster, body.voice ?? '', engine, deps.config.defaultVoice);
  const caller = callerOf(res);
  const request = synthesizeRequestOf({
    requestId,
    tenantId: caller.method === 'api_key' || caller.method === 'challenge' ? caller.subject : '',
    text: body.text,
    voice,
    engine,
    speed: body.speed ?? 1,
    format: body.format ?? 'wav',
    sampleRate: body.sample_rate ?? 0,
    language: body.language ?? '',
    rawText: body.normalize === false,
    instructions: '',
  });
  const metered = { endpoint: 'POST /api/tts', requestId, characters: body.text.length, textField: 'text', mode: body.mode ?? 'auto', consentConfirmed: body.consent_confirmed ?? null };
  await deps.metering.run(res, caller, metered, async () => {
    const { response, nodeId } = await deps.gateway.synthesize(request, FIELDS, signal);
    setVoiceHeaders(res, { voice: response.voice, engine: response.engine, nodeId, sampleRate: response.sampleRate });
    const m = response.metrics;
    if (m) {
      res.setHeader('X-Audio-Duration-Sec', m.audioSeconds.toFixed(3));
      res.setHeader('Server-Timing', `node;dur=${m.nodeMs.toFixed(2)}, synth;dur=${(m.computeSeconds * 1000).toFixed(2)}, queue;dur=${m.queueMs.toFixed(2)}`);
    }
    res.status(200).type(response.contentType).send(Buffer.from(response.audio));
    return m?.audioSeconds ?? 0;
  });
};
