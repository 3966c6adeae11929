import { studioCallerOf } from '../../middleware/access.js';
import { presetJson } from '../presets.js';
import { handler } from '../../handler-context.js';

/** GET /api/studio/presets: the caller's presets. */
export const listStudioPresets = handler('listStudioPresets', ['studio'], async ({ res, deps, query }) => {
  const presets = await deps.studio.presets.list(studioCallerOf(res), query.limit ?? 200);
  res.json({ object: 'list', data: presets.map(presetJson) });
});
