import { ownerKeyIdOf } from '../../identity/owner.js';
import { referenceJson } from '../references.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** GET /api/reference/clips: the caller's stored reference clips, newest first. */
export const listReferences = handler('listReferences', ['config', 'references'], async ({ query, res, deps }) => {
  const records = await deps.references.list(ownerKeyIdOf(callerOf(res)), query.limit ?? 50);
  res.json({ object: 'list', data: records.map(referenceJson), retention_hours: deps.config.referenceRetentionHours });
});
