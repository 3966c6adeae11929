import { jobTokenOf, tokenJob } from '../domain/job-access.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/web/jobs/{job_id}/audio: the audio of a completed web job, with its job token. */
export const getWebJobAudio: OperationHandler = async ({ req, res, deps, requestId, signal }) => {
  const jobId = String(req.params['job_id']);
  const job = await tokenJob(deps, jobTokenOf(req.get('x-job-token'), req.query['token']), jobId, 'GET /api/web/jobs/{job_id}/audio', requestId);
  await deps.jobs.pipeAudio(job, res, signal);
};
