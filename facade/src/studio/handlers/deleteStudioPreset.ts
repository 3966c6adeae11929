import { studioCallerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** DELETE /api/studio/presets/{preset_id}: deletes the preset and its shares. */
export const deleteStudioPreset = handler('deleteStudioPreset', ['studio'], async ({ res, deps, params }) => {
  await deps.studio.presets.remove(studioCallerOf(res), params.preset_id);
  res.json({ ok: true });
});
