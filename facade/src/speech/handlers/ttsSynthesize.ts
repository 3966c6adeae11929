import { performance } from 'node:perf_hooks';
import { cloneSourceOf, cloneSpecOf, requireConsent, ttsBodyOf } from '../clone-request.js';
import { speechRequestOf } from '../speech-request.js';
import { tenantWeightOf } from '../metering.js';
import { callerOf, tenantOf } from '../../middleware/access.js';
import { elapsedMs } from '../../middleware/telemetry.js';
import { setCloneHeaders, setQuotaStage, setVoiceHeaders, wordsJson } from '../../presenters/audio.js';
import { ttsBodyWithPreset } from '../../studio/preset-speech.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/tts: whole-file synthesis; with a reference (JSON reference_id, or a multipart ref_audio) a clone;
 * with a studio session, a preset_id supplies the voice setup; with `timestamps`, a JSON answer
 * with the audio in base64 and the words' timings.
 */
export const ttsSynthesize = handler('ttsSynthesize', ['cluster', 'config', 'gateway', 'lexicons', 'metering', 'references', 'studio'], async ({ body: sent, res, deps, requestId, signal }) => {
  const caller = callerOf(res);
  const body = await ttsBodyWithPreset(ttsBodyOf(sent), caller, deps.studio.presets);
  const lexicon = await deps.lexicons.forSpeech(caller, body.preset_id);
  const request = await speechRequestOf({ kind: 'tts', body }, { cluster: deps.cluster, defaultVoice: deps.config.defaultVoice, lexicon });
  const cloning = cloneSourceOf(body, res.locals.uploads?.find((u) => u.field === 'ref_audio'));
  const mode = cloning ? 'clone' : request.mode;
  const metered = { endpoint: 'POST /api/tts', requestId, characters: body.text.length, textField: 'text', mode, consentConfirmed: request.consentConfirmed, synchronous: true };
  await deps.metering.run(caller, metered, async (quota) => {
    setQuotaStage(res, quota);
    const speech = cloning ? { ...request.speech, clone: await cloneSpecOf(cloning, caller, deps) } : request.speech;
    const called = performance.now();
    const { response, nodeId } = await deps.gateway.synthesize({ requestId, tenantId: tenantOf(caller), tenantWeight: tenantWeightOf(caller), speech }, request.fields, signal);
    if (response.clone) setCloneHeaders(res, response.clone);
    const gatewayMs = performance.now() - called;
    setVoiceHeaders(res, { voice: response.voice, engine: response.engine, nodeId, sampleRate: response.sampleRate });
    const m = response.metrics;
    if (m) {
      res.setHeader('X-Audio-Duration-Sec', m.audioSeconds.toFixed(3));
      res.setHeader(
        'Server-Timing',
        `total;dur=${elapsedMs(res).toFixed(2)}, grpc;dur=${gatewayMs.toFixed(2)}, node;dur=${m.nodeMs.toFixed(2)}, synth;dur=${(m.computeSeconds * 1000).toFixed(2)}, queue;dur=${m.queueMs.toFixed(2)}` +
          // The voice was unloaded for idleness and loaded again for this request.
          (m.loadMs > 0 ? `, load;dur=${m.loadMs.toFixed(2)}` : ''),
      );
    }
    const audio = Buffer.from(response.audio.buffer, response.audio.byteOffset, response.audio.byteLength);
    if (body.timestamps === true) {
      res.status(200).json({
        audio: audio.toString('base64'),
        content_type: response.contentType,
        sample_rate: response.sampleRate,
        duration_seconds: Math.round((m?.audioSeconds ?? 0) * 1000) / 1000,
        words: wordsJson(response.words),
      });
    } else {
      res.status(200).type(response.contentType).send(audio);
    }
    return m?.audioSeconds ?? 0;
  }, cloning ? () => requireConsent(request.consentConfirmed) : undefined);
});
