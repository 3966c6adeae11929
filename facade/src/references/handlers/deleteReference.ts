import { ownerKeyIdOf } from '../../identity/owner.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** DELETE /api/reference/clips/{reference_id}: deletes one of the caller's stored clips now. */
export const deleteReference = handler('deleteReference', ['references'], async ({ params, res, deps }) => {
  await deps.references.delete(ownerKeyIdOf(callerOf(res)), params.reference_id);
  res.json({ ok: true, reference_id: params.reference_id, deleted: true });
});
