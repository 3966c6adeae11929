import { studioCallerOf } from '../../middleware/access.js';
import { presetJson } from '../presets.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/presets: a new preset. */
export const createStudioPreset = handler('createStudioPreset', ['studio'], async ({ res, deps, body }) => {
  const preset = await deps.studio.presets.create(studioCallerOf(res), body);
  res.status(201).json(presetJson(preset));
});
