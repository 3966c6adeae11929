import { enginesJson } from '../../cluster/node-views.js';
import { handler } from '../../handler-context.js';

/** GET /api/plugins/engines: engines of the cluster with readiness per node. */
export const listEngines = handler('listEngines', ['cluster'], async ({ res, deps }) => {
  const snap = await deps.cluster.snapshot();
  res.json({ engines: enginesJson(snap.nodes, snap.ready) });
});
