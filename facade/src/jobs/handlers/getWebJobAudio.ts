import { jobTokenOf, tokenJob } from '../job-access.js';
import { sendJobAudio } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';

/** GET /api/web/jobs/{job_id}/audio: the audio of a completed web job, with its job token. */
export const getWebJobAudio = handler('getWebJobAudio', ['access', 'jobTokens', 'jobs'], async ({ req, params, query, res, deps, requestId, signal }) => {
  const job = await tokenJob(deps, jobTokenOf(req.get('x-job-token'), query.token), params.job_id, 'GET /api/web/jobs/{job_id}/audio', requestId, req.ip ?? '');
  await sendJobAudio(res, job, deps.jobs.audio(job, signal));
});
