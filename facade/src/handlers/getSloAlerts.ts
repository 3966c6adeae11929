import { alertsView } from '../slo/views.js';
import type { OperationHandler } from '../operation.js';
import { sloQuery } from '../slo/query.js';

/** GET /api/slo/alerts: multi-window burn-rate alerts firing now, and those resolved within the window. */
export const getSloAlerts: OperationHandler = async ({ req, res, deps }) => {
  const q = sloQuery(req.query as Record<string, unknown>);
  res.json(alertsView(await deps.slo.alerts(q.windowMinutes, q.endpoint)));
};
