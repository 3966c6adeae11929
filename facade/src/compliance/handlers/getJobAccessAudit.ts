import { jobAccessAuditView } from '../../identity/index.js';
import { handler } from '../../handler-context.js';

/** GET /api/usage/job-access-audit (administrator): every read of a job's status or audio. */
export const getJobAccessAudit = handler('getJobAccessAudit', ['access'], async ({ query, res, deps }) => {
  res.json(jobAccessAuditView(await deps.access.audits.jobAccess(query)));
});
