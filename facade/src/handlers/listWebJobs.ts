import { jobJson } from '../domain/jobs.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../handler-context.js';

/** GET /api/web/jobs: the caller's (anti-bot pass holder's) most recent web jobs. */
export const listWebJobs: OperationHandler<'listWebJobs'> = async ({ query, res, deps }) => {
  const caller = callerOf(res);
  const owner = caller.method === 'challenge' || caller.method === 'api_key' ? caller.subject : 'anonymous';
  const limit = query.limit ?? 30;
  const jobs = await deps.jobs.list(owner, limit);
  res.json({ jobs: jobs.map((j) => jobJson(j, { self: `/api/web/jobs/${j.jobId}`, audio: `/api/web/jobs/${j.jobId}/audio`, events: `/api/web/jobs/${j.jobId}/events` })) });
};
