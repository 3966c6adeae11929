import { jobJson } from '../domain/jobs.js';
import { callerOf } from '../middleware/access.js';
import { webJobOwnerOf } from '../domain/owner.js';
import type { OperationHandler } from '../handler-context.js';

/** GET /api/web/jobs: the caller's (anti-bot pass holder's, key's or studio user's) most recent web jobs. */
export const listWebJobs: OperationHandler<'listWebJobs'> = async ({ query, res, deps }) => {
  const caller = callerOf(res);
  const owner = webJobOwnerOf(caller);
  const limit = query.limit ?? 30;
  const jobs = await deps.jobs.list(owner.id, limit, owner.kind);
  res.json({ jobs: jobs.map((j) => jobJson(j, { self: `/api/web/jobs/${j.jobId}`, audio: `/api/web/jobs/${j.jobId}/audio`, events: `/api/web/jobs/${j.jobId}/events` })) });
};
