import { ownerKeyIdOf } from '../../identity/owner.js';
import { referenceJson } from '../references.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** GET /api/reference/clips/{reference_id}: one of the caller's stored clips. */
export const getReference = handler('getReference', ['references'], async ({ params, res, deps }) => {
  res.json(referenceJson(await deps.references.get(ownerKeyIdOf(callerOf(res)), params.reference_id)));
});
