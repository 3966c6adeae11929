import { ownedJob } from '../domain/job-access.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/jobs/{job_id}/audio: the audio of a completed job (409 while it is not). */
export const getJobAudio: OperationHandler = async ({ req, res, deps, requestId, signal }) => {
  const job = await ownedJob(deps, callerOf(res), String(req.params['job_id']), 'GET /api/jobs/{job_id}/audio', requestId);
  await deps.jobs.pipeAudio(job, res, signal);
};
