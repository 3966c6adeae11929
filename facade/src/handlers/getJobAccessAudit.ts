import { jobAccessAuditView } from '../identity/index.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/usage/job-access-audit (administrator): every read of a job's status or audio. */
export const getJobAccessAudit: OperationHandler = async ({ req, res, deps }) => {
  res.json(jobAccessAuditView(await deps.access.audits.jobAccess(req.query)));
};
