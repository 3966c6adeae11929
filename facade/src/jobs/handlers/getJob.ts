import { ownedJob } from '../job-access.js';
import { jobJson } from '../jobs-gateway.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** GET /api/jobs/{job_id}: the job's status, visible only to the key that owns it. */
export const getJob = handler('getJob', ['access', 'jobs'], async ({ params, res, deps, requestId }) => {
  const job = await ownedJob(deps, callerOf(res), params.job_id, 'GET /api/jobs/{job_id}', requestId);
  const self = `/api/jobs/${job.jobId}`;
  res.json(jobJson(job, { self, audio: `${self}/audio` }));
});
