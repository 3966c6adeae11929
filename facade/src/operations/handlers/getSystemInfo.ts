import { systemInfo } from '../system-info.js';
import { handler } from '../../handler-context.js';

/** GET /api/system/info: version, uptime, nodes, engines, storage use and telemetry (administrators). */
export const getSystemInfo = handler('getSystemInfo', ['access', 'cluster', 'config', 'slo'], async ({ res, deps }) => {
  res.json(
    await systemInfo({ cluster: deps.cluster, database: deps.access.database, kvKind: deps.access.kv.backend.kind, dataDir: deps.config.dataDir, slo: deps.slo }),
  );
});
