import { callerOf } from '../../middleware/access.js';
import { sendSpokenFile, setQuotaStage } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';
import { ttsSettingsOf } from '../speech-request.js';

/**
 * POST /api/tts: whole-file synthesis; with a reference (JSON reference_id, or a multipart ref_audio) a clone;
 * with a studio session, a preset_id supplies the voice setup; with `timestamps`, a JSON answer
 * with the audio in base64 and the words' timings.
 */
export const ttsSynthesize = handler('ttsSynthesize', ['speech'], async ({ body, res, deps, requestId, signal }) => {
  const settings = ttsSettingsOf(body, res.locals.uploads?.find((u) => u.field === 'ref_audio'));
  await deps.speech.speak(callerOf(res), { requestId, endpoint: 'POST /api/tts', text: body.text, settings }, {
    kind: 'file',
    signal,
    admitted: (quota) => setQuotaStage(res, quota),
    deliver: (file) => sendSpokenFile(res, file, settings.wordTimings === true),
  });
});
