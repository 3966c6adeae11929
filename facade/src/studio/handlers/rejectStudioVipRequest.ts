import { actorOf, callerOf } from '../../middleware/access.js';
import { vipRequestJson } from '../vip.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/admin/vip-requests/{request_id}/reject: only from pending_review (else 409). */
export const rejectStudioVipRequest = handler('rejectStudioVipRequest', ['studio'], async ({ res, deps, params, requestId }) => {
  const caller = callerOf(res);
  const request = await deps.studio.vip.decide(params.request_id, 'rejected', actorOf(caller), caller.method === 'studio' ? caller.principal.user.userId : null, requestId);
  res.json(vipRequestJson(request, true));
});
