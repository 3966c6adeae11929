import { cleanupReportView } from '../cleanup-views.js';
import { handler } from '../../handler-context.js';

/** POST /api/system/cleanup/run: applies the retention now and reports what was removed. */
export const runCleanup = handler('runCleanup', ['cleanup'], async ({ res, deps }) => {
  res.json(cleanupReportView(await deps.cleanup.run('manual')));
});
