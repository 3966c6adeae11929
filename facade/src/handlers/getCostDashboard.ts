import { costDashboardView } from '../identity/index.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/usage/cost-dashboard (administrator): characters, audio minutes, cost and quota stage per key and tier. */
export const getCostDashboard: OperationHandler = async ({ req, res, deps }) => {
  res.json(costDashboardView(await deps.access.usage.costDashboard(req.query)));
};
