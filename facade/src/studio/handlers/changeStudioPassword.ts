import { studioCallerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/auth/password: changes the password; the user's other sessions end. */
export const changeStudioPassword = handler('changeStudioPassword', ['access'], async ({ res, deps, body, requestId }) => {
  const ended = await deps.access.studio.changePassword(studioCallerOf(res), body.current_password, body.new_password, requestId);
  res.json({ ok: true, other_sessions_ended: ended });
});
