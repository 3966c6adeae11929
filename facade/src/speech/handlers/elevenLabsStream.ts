import { callerOf } from '../../middleware/access.js';
import { setQuotaStage, streamSpoken } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';
import { elevenLabsSettingsOf } from '../speech-request.js';

/** POST /v1/text-to-speech/{voice_id}/stream: ElevenLabs-compatible, streamed as sentences are ready. */
export const elevenLabsStream = handler('elevenLabsStream', ['speech'], async ({ params, query, body, res, deps, requestId, signal }) => {
  const settings = elevenLabsSettingsOf(params.voice_id, body, query, false);
  await deps.speech.speak(callerOf(res), { requestId, endpoint: 'POST /v1/text-to-speech/{voice_id}/stream', text: body.text, settings }, {
    kind: 'stream',
    signal,
    admitted: (quota) => setQuotaStage(res, quota),
    deliver: (stream) => streamSpoken(res, stream, false, signal),
  });
});
