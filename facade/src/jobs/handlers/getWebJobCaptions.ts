import { jobTokenOf, tokenJob } from '../job-access.js';
import { sendJobCaptions } from '../../presenters/captions.js';
import { handler } from '../../handler-context.js';

/** GET /api/web/jobs/{job_id}/captions: captions of a completed web job, with its job token. */
export const getWebJobCaptions = handler('getWebJobCaptions', ['access', 'jobTokens', 'jobs'], async ({ req, params, query, res, deps, requestId }) => {
  const job = await tokenJob(deps, jobTokenOf(req.get('x-job-token'), query.token), params.job_id, 'GET /api/web/jobs/{job_id}/captions', requestId, req.ip ?? '');
  sendJobCaptions(res, job, query.format ?? 'vtt');
});
