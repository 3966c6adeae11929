import { JobOwnerKind } from '@tts/proto/scheduler';
import { studioCallerOf } from '../../middleware/access.js';
import { studioUsageSubject } from '../tiers.js';
import { handler } from '../../handler-context.js';

/**
 * DELETE /api/studio/auth/me: deletes the caller's account (data removed, audits kept anonymously),
 * then its stored reference clips, and cancels its unfinished web jobs (the finished ones are
 * revoked: their job tokens answer 404 once the account is deleted, see jobs/job-access.ts).
 */
export const deleteStudioAccount = handler('deleteStudioAccount', ['access', 'jobs', 'references'], async ({ res, deps, body, requestId }) => {
  const p = studioCallerOf(res);
  const removed = await deps.access.studio.deleteAccount(p, body?.password, requestId);
  const references = await deps.references.deleteOwner(studioUsageSubject(p.user.userId));
  const jobs = await deps.jobs.cancelOwner(p.user.userId, JobOwnerKind.JOB_OWNER_KIND_STUDIO);
  res.json({ ok: true, removed: { ...removed, references, jobs_cancelled: jobs } });
});
