import { vipRequestJson } from '../vip.js';
import { handler } from '../../handler-context.js';

/** GET /api/studio/admin/vip-requests: VIP requests with the provider's findings (administrators). */
export const listStudioVipRequests = handler('listStudioVipRequests', ['studio'], async ({ res, deps, query }) => {
  const requests = await deps.studio.vip.list(query.status, query.limit ?? 200);
  res.json({ object: 'list', data: requests.map((r) => vipRequestJson(r, true)) });
});
