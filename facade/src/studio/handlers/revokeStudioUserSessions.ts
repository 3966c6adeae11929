import { actorOf, callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/admin/users/{user_id}/revoke-sessions: ends every session of the user. */
export const revokeStudioUserSessions = handler('revokeStudioUserSessions', ['access'], async ({ res, deps, params, requestId }) => {
  const n = await deps.access.studio.revokeSessions(params.user_id, actorOf(callerOf(res)), requestId);
  res.json({ ok: true, sessions_ended: n });
});
