import { costDashboardView } from '../index.js';
import { handler } from '../../handler-context.js';

/** GET /api/usage/cost-dashboard (administrator): characters, audio minutes, cost and quota stage per key and tier. */
export const getCostDashboard = handler('getCostDashboard', ['access'], async ({ query, res, deps }) => {
  res.json(costDashboardView(await deps.access.usage.costDashboard(query)));
});
