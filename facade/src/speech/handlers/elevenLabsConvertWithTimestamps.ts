import { callerOf } from '../../middleware/access.js';
import { sendTimestampedFile, setQuotaStage } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';
import { elevenLabsSettingsOf } from '../speech-request.js';

/** POST /v1/text-to-speech/{voice_id}/with-timestamps: ElevenLabs-compatible, the file in base64 with character timings. */
export const elevenLabsConvertWithTimestamps = handler('elevenLabsConvertWithTimestamps', ['speech'], async ({ params, query, body, res, deps, requestId, signal }) => {
  const settings = elevenLabsSettingsOf(params.voice_id, body, query, true);
  await deps.speech.speak(callerOf(res), { requestId, endpoint: 'POST /v1/text-to-speech/{voice_id}/with-timestamps', text: body.text, settings }, {
    kind: 'file',
    signal,
    admitted: (quota) => setQuotaStage(res, quota),
    deliver: (file) => sendTimestampedFile(res, file, body.text),
  });
});
