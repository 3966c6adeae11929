import { consentAuditView } from '../../identity/index.js';
import { handler } from '../../handler-context.js';

/** GET /api/compliance/consent-audit (administrator): every synthesis request with its consent and outcome. */
export const getConsentAudit = handler('getConsentAudit', ['access'], async ({ query, res, deps }) => {
  res.json(consentAuditView(await deps.access.audits.consent(query)));
});
