import { studioCallerOf } from '../../middleware/access.js';
import { presetJson } from '../presets.js';
import { handler } from '../../handler-context.js';

/** PATCH /api/studio/presets/{preset_id}: changes the fields sent. */
export const updateStudioPreset = handler('updateStudioPreset', ['studio'], async ({ res, deps, body, params }) => {
  const preset = await deps.studio.presets.update(studioCallerOf(res), params.preset_id, body);
  res.json(presetJson(preset));
});
