/** JSON shapes of the cleanup configuration and run report (CleanupConfig, CleanupReport in the OpenAPI document). */
import type { CleanupReport, CleanupService } from './cleanup.js';

/** GET /api/system/cleanup/config body. */
export function cleanupConfigView(cleanup: CleanupService): Record<string, unknown> {
  const last = cleanup.lastRun;
  return {
    interval_minutes: cleanup.policy.intervalMinutes,
    next_run_at: cleanup.nextRunAt === null ? null : cleanup.nextRunAt.toISOString(),
    last_run: last === undefined ? null : cleanupReportView(last),
    items: cleanup.items().map((i) => ({ name: i.name, managed: i.managed, retention_seconds: i.retentionSeconds, location: i.location, note: i.note })),
  };
}

/** POST /api/system/cleanup/run body. */
export function cleanupReportView(r: CleanupReport): Record<string, unknown> {
  return {
    trigger: r.trigger,
    started_at: r.startedAt.toISOString(),
    duration_ms: Math.round(r.durationMs * 1000) / 1000,
    removed_total: r.items.reduce((n, i) => n + i.removed, 0),
    items: r.items.map((i) => ({ name: i.name, status: i.status, removed: i.removed, bytes_freed: i.bytesFreed, note: i.note })),
  };
}
