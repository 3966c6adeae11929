import { jobJson } from '../domain/jobs.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/web/jobs: the caller's (anti-bot pass holder's) most recent web jobs. */
export const listWebJobs: OperationHandler = async ({ req, res, deps }) => {
  const caller = callerOf(res);
  const owner = caller.method === 'challenge' || caller.method === 'api_key' ? caller.subject : 'anonymous';
  const limit = Number(req.query['limit'] ?? 30);
  const jobs = await deps.jobs.list(owner, limit);
  res.json({ jobs: jobs.map((j) => jobJson(j, { self: `/api/web/jobs/${j.jobId}`, audio: `/api/web/jobs/${j.jobId}/audio`, events: `/api/web/jobs/${j.jobId}/events` })) });
};
