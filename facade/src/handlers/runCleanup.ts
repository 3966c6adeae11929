import { cleanupReportView } from '../domain/cleanup-views.js';
import type { OperationHandler } from '../operation.js';

/** POST /api/system/cleanup/run: applies the retention now and reports what was removed. */
export const runCleanup: OperationHandler = async ({ res, deps }) => {
  res.json(cleanupReportView(await deps.cleanup.run('manual')));
};
