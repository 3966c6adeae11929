import { callerOf } from '../../middleware/access.js';
import { sendSpokenFile, setQuotaStage } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';
import { elevenLabsSettingsOf } from '../speech-request.js';

/** POST /v1/text-to-speech/{voice_id}: ElevenLabs-compatible, the whole file in `output_format`. */
export const elevenLabsConvert = handler('elevenLabsConvert', ['speech'], async ({ params, query, body, res, deps, requestId, signal }) => {
  const settings = elevenLabsSettingsOf(params.voice_id, body, query, false);
  await deps.speech.speak(callerOf(res), { requestId, endpoint: 'POST /v1/text-to-speech/{voice_id}', text: body.text, settings }, {
    kind: 'file',
    signal,
    admitted: (quota) => setQuotaStage(res, quota),
    deliver: (file) => sendSpokenFile(res, file, false),
  });
});
