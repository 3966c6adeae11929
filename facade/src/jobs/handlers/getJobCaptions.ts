import { ownedJob } from '../job-access.js';
import { callerOf } from '../../middleware/access.js';
import { sendJobCaptions } from '../../presenters/captions.js';
import { handler } from '../../handler-context.js';

/** GET /api/jobs/{job_id}/captions: captions of a completed job from its word timings (409 while it is not, or without timings). */
export const getJobCaptions = handler('getJobCaptions', ['access', 'jobs'], async ({ params, query, res, deps, requestId }) => {
  const job = await ownedJob(deps, callerOf(res), params.job_id, 'GET /api/jobs/{job_id}/captions', requestId);
  sendJobCaptions(res, job, query.format ?? 'vtt');
});
