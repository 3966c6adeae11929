import { jobJson } from '../jobs-gateway.js';
import { callerOf } from '../../middleware/access.js';
import { webJobOwnerOf } from '../../identity/owner.js';
import { handler } from '../../handler-context.js';

/** GET /api/web/jobs: the caller's (anti-bot pass holder's, key's or studio user's) most recent web jobs. */
export const listWebJobs = handler('listWebJobs', ['jobTokens', 'jobs'], async ({ query, res, deps }) => {
  const caller = callerOf(res);
  const owner = webJobOwnerOf(caller);
  const limit = query.limit ?? 30;
  const jobs = await deps.jobs.list(owner.id, limit, owner.kind);
  // The listing is the owner's: each job comes with a fresh token, so any tab or session of the
  // owner can follow it and fetch its audio.
  res.json({
    jobs: jobs.map((j) => {
      const { token, expiresUnix } = deps.jobTokens.issue(j.jobId);
      return { ...jobJson(j, { self: `/api/web/jobs/${j.jobId}`, audio: `/api/web/jobs/${j.jobId}/audio`, events: `/api/web/jobs/${j.jobId}/events` }), job_token: token, job_token_expires_unix: expiresUnix };
    }),
  });
});
