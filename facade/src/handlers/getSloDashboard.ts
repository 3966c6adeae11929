import { sloQuery } from '../slo/query.js';
import { dashboardView } from '../slo/views.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/slo/dashboard: requests, errors, availability, latency percentiles, budget and burn rate, overall and per endpoint. */
export const getSloDashboard: OperationHandler = async ({ req, res, deps }) => {
  // Query values arrive coerced by the OpenAPI validator (integer, boolean).
  const query = req.query as Record<string, unknown>;
  const q = sloQuery(query);
  const includeEndpoints = query['include_endpoints'] !== false && query['include_endpoints'] !== 'false';
  res.json(dashboardView(await deps.slo.dashboard(q.windowMinutes, q.endpoint, includeEndpoints)));
};
