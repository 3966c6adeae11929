/** Compliance: terms, abuse reports, watermark detection, the consent and job-access audits. */
import { acceptComplianceTerms } from './acceptComplianceTerms.js';
import { createAbuseReport } from './createAbuseReport.js';
import { detectWatermark } from './detectWatermark.js';
import { getAbuseReport } from './getAbuseReport.js';
import { getComplianceTerms } from './getComplianceTerms.js';
import { getConsentAudit } from './getConsentAudit.js';
import { getJobAccessAudit } from './getJobAccessAudit.js';
import { listAbuseReports } from './listAbuseReports.js';
import { updateAbuseReportStatus } from './updateAbuseReportStatus.js';

/** The handlers of this room, keyed by operationId. */
export const COMPLIANCE_HANDLERS = {
  detectWatermark,
  getComplianceTerms,
  acceptComplianceTerms,
  createAbuseReport,
  listAbuseReports,
  getAbuseReport,
  updateAbuseReportStatus,
  getJobAccessAudit,
  getConsentAudit,
} as const;
