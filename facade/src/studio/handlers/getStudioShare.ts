import { enforcePublicRate } from '../../middleware/access.js';
import { publicShareJson } from '../presets.js';
import { handler } from '../../handler-context.js';

/** GET /api/studio/share/{share_token}: the shared setup with its lexicon, public. */
export const getStudioShare = handler('getStudioShare', ['access', 'lexicons', 'studio'], async ({ req, res, deps, params }) => {
  await enforcePublicRate(res, deps.access, `studio-share:${req.ip ?? ''}`);
  const { share, preset } = await deps.studio.presets.open(params.share_token);
  res.json(publicShareJson(share, preset, await deps.lexicons.ofSharedPreset(preset)));
});
