import { alertsView } from '../slo/slo-views.js';
import { handler } from '../../handler-context.js';
import { sloQuery } from '../slo/query.js';

/** GET /api/slo/alerts: multi-window burn-rate alerts firing now, and those resolved within the window. */
export const getSloAlerts = handler('getSloAlerts', ['slo'], async ({ query, res, deps }) => {
  const q = sloQuery(query);
  res.json(alertsView(await deps.slo.alerts(q.windowMinutes, q.endpoint)));
});
