import { performance } from 'node:perf_hooks';
import type { AudioFormat } from '@tts/common/audio';
import { setVoiceHeaders, speechParamsFor, synthesizeRequestOf } from '../domain/speech.js';
import type { FieldNames } from '../domain/synthesis.js';
import { callerOf } from '../middleware/access.js';
import { elapsedMs } from '../middleware/telemetry.js';
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
  const caller = callerOf(res);
  const tenantId = caller.method === 'api_key' || caller.method === 'challenge' ? caller.subject : '';
  const request = synthesizeRequestOf(
    await speechParamsFor(deps.cluster, deps.config.defaultVoice, requestId, tenantId, { ...body, sampleRate: body.sample_rate }),
  );
  const metered = { endpoint: 'POST /api/tts', requestId, characters: body.text.length, textField: 'text', mode: body.mode ?? 'auto', consentConfirmed: body.consent_confirmed ?? null };
  await deps.metering.run(res, caller, metered, async () => {
    const called = performance.now();
    const { response, nodeId } = await deps.gateway.synthesize(request, FIELDS, signal);
    const gatewayMs = performance.now() - called;
    setVoiceHeaders(res, { voice: response.voice, engine: response.engine, nodeId, sampleRate: response.sampleRate });
    const m = response.metrics;
    if (m) {
      res.setHeader('X-Audio-Duration-Sec', m.audioSeconds.toFixed(3));
      res.setHeader(
        'Server-Timing',
        `total;dur=${elapsedMs(res).toFixed(2)}, grpc;dur=${gatewayMs.toFixed(2)}, node;dur=${m.nodeMs.toFixed(2)}, synth;dur=${(m.computeSeconds * 1000).toFixed(2)}, queue;dur=${m.queueMs.toFixed(2)}`,
      );
    }
    const audio = response.audio;
    res.status(200).type(response.contentType).send(Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength));
    return m?.audioSeconds ?? 0;
  });
};
