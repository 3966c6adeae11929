import { actorOf, callerOf } from '../../middleware/access.js';
import { abuseReportJson } from '../abuse-reports.js';
import { handler } from '../../handler-context.js';
import { historyJson } from './getAbuseReport.js';

/**
 * POST /api/compliance/abuse/reports/{report_id}/status (administrators): moves a report
 * open -> reviewing -> actioned | dismissed; any other move answers 409. Audited.
 */
export const updateAbuseReportStatus = handler('updateAbuseReportStatus', ['abuseReports'], async ({ params, body, res, deps }) => {
  const report = await deps.abuseReports.move(params.report_id, body.status, actorOf(callerOf(res)), body.note ?? null);
  const history = await deps.abuseReports.history(params.report_id);
  res.json({ ...abuseReportJson(report, true), history: history.map(historyJson) });
});
