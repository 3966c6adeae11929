import { jobTokenOf, tokenJob } from '../job-access.js';
import { jobJson } from '../jobs-gateway.js';
import { handler } from '../../handler-context.js';

/** GET /api/web/jobs/{job_id}: status of a web job, with its job token (header or query). */
export const getWebJob = handler('getWebJob', ['access', 'jobTokens', 'jobs'], async ({ req, params, query, res, deps, requestId }) => {
  const jobId = params.job_id;
  const job = await tokenJob(deps, jobTokenOf(req.get('x-job-token'), query.token), jobId, 'GET /api/web/jobs/{job_id}', requestId, req.ip ?? '');
  res.json(jobJson(job, { self: `/api/web/jobs/${jobId}`, audio: `/api/web/jobs/${jobId}/audio`, events: `/api/web/jobs/${jobId}/events` }));
});
