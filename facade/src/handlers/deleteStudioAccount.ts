import { studioCallerOf } from '../middleware/access.js';
import type { OperationHandler } from '../handler-context.js';

/** DELETE /api/studio/auth/me: deletes the caller's account (data removed, audits kept anonymously). */
export const deleteStudioAccount: OperationHandler<'deleteStudioAccount'> = async ({ res, deps, body, requestId }) => {
  const removed = await deps.access.studio.deleteAccount(studioCallerOf(res), body?.password, requestId);
  res.json({ ok: true, removed });
};
