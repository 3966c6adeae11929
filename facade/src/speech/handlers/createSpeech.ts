import { TtsError } from '@tts/common';
import { speechRequestOf } from '../speech-request.js';
import { tenantWeightOf } from '../metering.js';
import { callerOf, tenantOf } from '../../middleware/access.js';
import { pipeAudio, pipeSse, setQuotaStage, setVoiceHeaders } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';

/** POST /v1/audio/speech: OpenAI-compatible, streamed as sentences are ready. */
export const createSpeech = handler('createSpeech', ['cluster', 'config', 'gateway', 'lexicons', 'metering'], async ({ body, res, deps, requestId, signal }) => {
  const caller = callerOf(res);
  const request = await speechRequestOf({ kind: 'openai', body }, { cluster: deps.cluster, defaultVoice: deps.config.defaultVoice, lexicon: await deps.lexicons.forSpeech(caller, undefined) });
  const metered = { endpoint: 'POST /v1/audio/speech', requestId, characters: body.input.length, textField: 'input', mode: request.mode, consentConfirmed: request.consentConfirmed, synchronous: true };
  await deps.metering.run(caller, metered, async (quota) => {
    setQuotaStage(res, quota);
    const stream = await deps.gateway.stream({ requestId, tenantId: tenantOf(caller), tenantWeight: tenantWeightOf(caller), speech: request.speech }, request.fields, signal);
    setVoiceHeaders(res, { voice: stream.info.voice, engine: stream.info.engine, nodeId: stream.nodeId, sampleRate: stream.info.sampleRate });
    const metrics = body.stream_format === 'sse' ? await pipeSse(stream, res, signal) : await pipeAudio(stream, res, signal);
    if (!metrics) throw new TtsError('TTS_CANCELLED', 'The client went away before the audio was complete.');
    return metrics.audioSeconds;
  });
});
