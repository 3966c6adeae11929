import { cleanupConfigView } from '../cleanup-views.js';
import { handler } from '../../handler-context.js';

/** GET /api/system/cleanup/config: what is retained for how long, what is kept on purpose, the schedule. */
export const getCleanupConfig = handler('getCleanupConfig', ['cleanup'], async ({ res, deps }) => {
  res.json(cleanupConfigView(deps.cleanup));
});
