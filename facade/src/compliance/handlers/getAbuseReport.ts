import { abuseReportJson } from '../abuse-reports.js';
import { handler } from '../../handler-context.js';

/** GET /api/compliance/abuse/reports/{report_id} (administrators): a report with its status history. */
export const getAbuseReport = handler('getAbuseReport', ['abuseReports'], async ({ params, res, deps }) => {
  const report = await deps.abuseReports.get(params.report_id);
  const history = await deps.abuseReports.history(params.report_id);
  res.json({ ...abuseReportJson(report, true), history: history.map(historyJson) });
});

/** The JSON of one status change. */
export function historyJson(h: { at: Date; actor: string; fromStatus: string | null; toStatus: string; note: string | null }): Record<string, unknown> {
  return { at: h.at.toISOString(), actor: h.actor, from: h.fromStatus, to: h.toStatus, note: h.note };
}
