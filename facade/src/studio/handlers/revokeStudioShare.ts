import { studioCallerOf } from '../../middleware/access.js';
import { shareJson } from '../presets.js';
import { handler } from '../../handler-context.js';

/** DELETE /api/studio/shares/{share_id}: revokes the share. */
export const revokeStudioShare = handler('revokeStudioShare', ['studio'], async ({ res, deps, params }) => {
  const share = await deps.studio.presets.revoke(studioCallerOf(res), params.share_id);
  res.json(shareJson(share));
});
