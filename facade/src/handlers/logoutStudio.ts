import { studioCallerOf } from '../middleware/access.js';
import type { OperationHandler } from '../handler-context.js';

/** POST /api/studio/auth/logout: ends the calling session. */
export const logoutStudio: OperationHandler<'logoutStudio'> = async ({ res, deps }) => {
  await deps.access.studio.logout(studioCallerOf(res));
  res.json({ ok: true });
};
