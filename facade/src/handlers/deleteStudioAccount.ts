import { studioCallerOf } from '../middleware/access.js';
import { studioUsageSubject } from '../studio/tiers.js';
import type { OperationHandler } from '../handler-context.js';

/**
 * DELETE /api/studio/auth/me: deletes the caller's account (data removed, audits kept anonymously),
 * then its stored reference clips.
 */
export const deleteStudioAccount: OperationHandler<'deleteStudioAccount'> = async ({ res, deps, body, requestId }) => {
  const p = studioCallerOf(res);
  const removed = await deps.access.studio.deleteAccount(p, body?.password, requestId);
  const references = await deps.references.deleteOwner(studioUsageSubject(p.user.userId));
  res.json({ ok: true, removed: { ...removed, references } });
};
