import { SERVICE_NAME, VERSION, type Logger } from '@tts/common';
import type { ClusterView } from '../../cluster/cluster.js';
import { analysisFeaturesOf, type AnalysisFeaturesJson } from '../../cluster/analysis-features.js';
import { isoWithOffset } from '../../cluster/readiness.js';
import { handler } from '../../handler-context.js';

/** The cluster's analysis features; each unavailable (saying why) when the cluster is unreachable. */
async function analysisOf(cluster: ClusterView): Promise<AnalysisFeaturesJson> {
  try {
    return analysisFeaturesOf((await cluster.snapshot()).ready);
  } catch {
    return analysisFeaturesOf([]);
  }
}

/**
 * Execution devices in use: those reported by the ready engines of ready nodes (e.g. "cpu",
 * "cpu,cuda"), sorted and joined by ","; "cpu" when none reports one or the cluster is unreachable.
 */
async function devicesInUse(cluster: ClusterView, logger: Logger): Promise<string> {
  try {
    const snap = await cluster.snapshot();
    const devices = new Set<string>();
    for (const node of snap.ready) {
      for (const e of node.engines) {
        if (!e.ready) continue;
        for (const d of e.device.split(',')) if (d.trim() !== '') devices.add(d.trim());
      }
    }
    return devices.size === 0 ? 'cpu' : [...devices].sort().join(',');
  } catch (err) {
    logger.warn('health without the cluster view: devices reported as cpu', { error: err instanceof Error ? err.message : String(err) });
    return 'cpu';
  }
}

/** GET /api/health: readiness, mode, model, execution device and start-up warm-up. */
export const getHealth = handler('getHealth', ['cluster', 'config', 'logger', 'readiness'], async ({ res, deps }) => {
  const r = await deps.readiness.report();
  res.json({
    ok: true,
    ready: r.ready,
    ready_since: r.readySince ? isoWithOffset(r.readySince) : null,
    service: SERVICE_NAME,
    mode: deps.config.databaseUrl || deps.config.redisUrl ? 'distributed' : 'embedded',
    model: deps.config.defaultVoice,
    device: await devicesInUse(deps.cluster, deps.logger),
    version: VERSION,
    nodes_ready: r.nodesReady,
    startup_warmup: { done: r.warmup.done, duration_ms: Math.round(r.warmup.durationMs), voices: r.warmup.voices, error: r.warmup.error },
    analysis: await analysisOf(deps.cluster),
  });
});
