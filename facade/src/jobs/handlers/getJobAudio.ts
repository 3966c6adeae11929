import { ownedJob } from '../job-access.js';
import { callerOf } from '../../middleware/access.js';
import { sendJobAudio } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';

/** GET /api/jobs/{job_id}/audio: the audio of a completed job (409 while it is not). */
export const getJobAudio = handler('getJobAudio', ['access', 'jobs'], async ({ params, res, deps, requestId, signal }) => {
  const job = await ownedJob(deps, callerOf(res), params.job_id, 'GET /api/jobs/{job_id}/audio', requestId);
  await sendJobAudio(res, job, deps.jobs.audio(job, signal));
});
