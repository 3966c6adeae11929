import { callerOf } from '../../middleware/access.js';
import { setQuotaStage, streamSpoken } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';
import { openAiSettingsOf } from '../speech-request.js';

/** POST /v1/audio/speech: OpenAI-compatible, streamed as sentences are ready. */
export const createSpeech = handler('createSpeech', ['speech'], async ({ body, res, deps, requestId, signal }) => {
  await deps.speech.speak(callerOf(res), { requestId, endpoint: 'POST /v1/audio/speech', text: body.input, settings: openAiSettingsOf(body) }, {
    kind: 'stream',
    signal,
    admitted: (quota) => setQuotaStage(res, quota),
    deliver: (stream) => streamSpoken(res, stream, body.stream_format === 'sse', signal),
  });
});
