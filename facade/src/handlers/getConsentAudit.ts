import { consentAuditView } from '../identity/index.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/compliance/consent-audit (administrator): every synthesis request with its consent and outcome. */
export const getConsentAudit: OperationHandler = async ({ req, res, deps }) => {
  res.json(consentAuditView(await deps.access.audits.consent(req.query)));
};
