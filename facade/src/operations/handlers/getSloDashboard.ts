import { sloQuery } from '../slo/query.js';
import { dashboardView } from '../slo/slo-views.js';
import { handler } from '../../handler-context.js';

/** GET /api/slo/dashboard: requests, errors, availability, latency percentiles, budget and burn rate, overall and per endpoint. */
export const getSloDashboard = handler('getSloDashboard', ['slo'], async ({ query, res, deps }) => {
  // Query values arrive coerced by the OpenAPI validator (integer, boolean).
  const q = sloQuery(query);
  const includeEndpoints = query.include_endpoints ?? true;
  res.json(dashboardView(await deps.slo.dashboard(q.windowMinutes, q.endpoint, includeEndpoints)));
});
