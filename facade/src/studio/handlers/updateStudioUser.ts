import { actorOf, callerOf } from '../../middleware/access.js';
import { studioUserJson } from '../accounts.js';
import { handler } from '../../handler-context.js';

/** PATCH /api/studio/admin/users/{user_id}: role, VIP end, disabled (administrators). */
export const updateStudioUser = handler('updateStudioUser', ['access'], async ({ res, deps, body, params, requestId }) => {
  const caller = callerOf(res);
  const vipUntil = body.vip_until === undefined ? undefined : body.vip_until === null ? null : new Date(body.vip_until);
  const user = await deps.access.studio.updateUser(actorOf(caller), caller.method === 'studio' ? caller.principal.user.userId : null, params.user_id, { role: body.role, disabled: body.disabled, vipUntil }, requestId);
  res.json(studioUserJson(user, new Date(), true));
});
