import { apiJobOwnerOf } from '../../identity/owner.js';
import { callerOf } from '../../middleware/access.js';
import { setQuotaStage } from '../../presenters/audio.js';
import { ttsSettingsOf } from '../../speech/speech-request.js';
import { handler } from '../../handler-context.js';
import { jobJson } from '../jobs-gateway.js';

/**
 * POST /api/jobs/tts: queues a job owned by the calling API key (202). The text counts against the
 * key's quota when the job is accepted.
 */
export const submitJob = handler('submitJob', ['speech'], async ({ body, res, deps, requestId }) => {
  const caller = callerOf(res);
  await deps.speech.speak(caller, { requestId, endpoint: 'POST /api/jobs/tts', text: body.text, settings: ttsSettingsOf(body) }, {
    kind: 'job',
    owner: apiJobOwnerOf(caller),
    admitted: (quota) => setQuotaStage(res, quota),
    deliver: (job) => {
      const self = `/api/jobs/${job.jobId}`;
      res.status(202).setHeader('Location', self);
      res.json(jobJson(job, { self, audio: `${self}/audio` }));
    },
  });
});
