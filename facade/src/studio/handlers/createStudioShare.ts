import { studioCallerOf } from '../../middleware/access.js';
import { shareJson } from '../presets.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/presets/{preset_id}/share: a share link; the token is in this answer only. */
export const createStudioShare = handler('createStudioShare', ['studio'], async ({ res, deps, body, params }) => {
  const { share, token } = await deps.studio.presets.share(studioCallerOf(res), params.preset_id, body.expires_in_sec);
  res.status(201).json({ ...shareJson(share), share_token: token, share_path: `/api/studio/share/${token}` });
});
