import { handler } from '../../handler-context.js';

/** GET /api/web/system/status: queue depth, running jobs, ready nodes and an ETA. */
export const getWebSystemStatus = handler('getWebSystemStatus', ['jobs', 'logger'], async ({ res, deps }) => {
  let stats;
  try {
    stats = await deps.jobs.stats();
  } catch (err) {
    deps.logger.warn('web system status without the scheduler', { error: err instanceof Error ? err.message : String(err) });
    res.json({ status: 'unavailable', queue_depth: 0, running: 0, nodes_ready: 0, nodes_total: 0, capacity: 0, eta_seconds: null });
    return;
  }
  res.json({
    status: stats.nodesReady === 0 ? 'unavailable' : stats.nodesReady < stats.nodesTotal ? 'degraded' : 'ok',
    queue_depth: stats.queued,
    running: stats.running,
    nodes_ready: stats.nodesReady,
    nodes_total: stats.nodesTotal,
    capacity: stats.capacity,
    eta_seconds: Math.round(stats.etaSeconds * 10) / 10,
  });
});
