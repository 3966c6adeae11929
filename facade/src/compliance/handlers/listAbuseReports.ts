import { abuseReportJson } from '../abuse-reports.js';
import { handler } from '../../handler-context.js';

/** GET /api/compliance/abuse/reports (administrators): reports, newest first, optionally by status. */
export const listAbuseReports = handler('listAbuseReports', ['abuseReports'], async ({ query, res, deps }) => {
  const reports = await deps.abuseReports.list(query.status, query.limit ?? 200);
  res.json({ object: 'list', data: reports.map((r) => abuseReportJson(r, true)) });
});
