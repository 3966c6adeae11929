import { studioCallerOf } from '../middleware/access.js';
import type { OperationHandler } from '../handler-context.js';

/** DELETE /api/studio/presets/{preset_id}: deletes the preset and its shares. */
export const deleteStudioPreset: OperationHandler<'deleteStudioPreset'> = async ({ res, deps, params }) => {
  await deps.studio.presets.remove(studioCallerOf(res), params.preset_id);
  res.json({ ok: true });
};
