import { studioCallerOf } from '../../middleware/access.js';
import { presetJson } from '../presets.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/share/{share_token}/fork: copies the shared preset into the caller's presets. */
export const forkStudioShare = handler('forkStudioShare', ['studio'], async ({ res, deps, body, params }) => {
  const preset = await deps.studio.presets.fork(studioCallerOf(res), params.share_token, body.name);
  res.status(201).json(presetJson(preset));
});
