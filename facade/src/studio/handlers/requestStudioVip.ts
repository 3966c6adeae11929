import { studioCallerOf } from '../../middleware/access.js';
import { vipRequestJson } from '../vip.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/vip/request: asks an administrator for VIP. */
export const requestStudioVip = handler('requestStudioVip', ['studio'], async ({ res, deps, body, requestId }) => {
  const request = await deps.studio.vip.request(studioCallerOf(res), body.plan_id, body.message, requestId);
  res.status(201).json(vipRequestJson(request, false));
});
