import { SERVICE_NAME, VERSION } from '../../../services/common/src/version.js';
import { isoWithOffset } from '../domain/readiness.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/health: readiness, mode, model and start-up warm-up. */
export const getHealth: OperationHandler = async ({ res, deps }) => {
  const r = await deps.readiness.report();
  res.json({
    ok: true,
    ready: r.ready,
    ready_since: r.readySince ? isoWithOffset(r.readySince) : null,
    service: SERVICE_NAME,
    mode: deps.config.databaseUrl || deps.config.redisUrl ? 'distributed' : 'embedded',
    model: deps.config.defaultVoice,
    version: VERSION,
    nodes_ready: r.nodesReady,
    startup_warmup: { done: r.warmup.done, duration_ms: Math.round(r.warmup.durationMs), voices: r.warmup.voices, error: r.warmup.error },
  });
};
