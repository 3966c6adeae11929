import { studioCallerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/auth/logout: ends the calling session. */
export const logoutStudio = handler('logoutStudio', ['access'], async ({ res, deps }) => {
  await deps.access.studio.logout(studioCallerOf(res));
  res.json({ ok: true });
});
