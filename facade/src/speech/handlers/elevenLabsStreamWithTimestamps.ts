import { callerOf } from '../../middleware/access.js';
import { setQuotaStage, streamTimestamped } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';
import { elevenLabsSettingsOf } from '../speech-request.js';

/** POST /v1/text-to-speech/{voice_id}/stream/with-timestamps: ElevenLabs-compatible, newline-delimited JSON of audio and character timings. */
export const elevenLabsStreamWithTimestamps = handler('elevenLabsStreamWithTimestamps', ['speech'], async ({ params, query, body, res, deps, requestId, signal }) => {
  const settings = elevenLabsSettingsOf(params.voice_id, body, query, true);
  await deps.speech.speak(callerOf(res), { requestId, endpoint: 'POST /v1/text-to-speech/{voice_id}/stream/with-timestamps', text: body.text, settings }, {
    kind: 'stream',
    signal,
    admitted: (quota) => setQuotaStage(res, quota),
    deliver: (stream) => streamTimestamped(res, stream, body.text, signal),
  });
});
