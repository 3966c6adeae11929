import type { OperationHandler } from '../operation.js';

/** GET /api/logs/stream: the last `tail` log lines, then live lines and heartbeats, as Server-Sent Events. */
export const streamLogs: OperationHandler = async ({ req, res, deps }) => {
  // Query values arrive coerced and bounded by the OpenAPI validator (tail 0..200, heartbeat_sec 0.5..30).
  const query = req.query as Record<string, unknown>;
  const tail = query['tail'] === undefined ? 30 : Number(query['tail']);
  const heartbeatSec = query['heartbeat_sec'] === undefined ? 2 : Number(query['heartbeat_sec']);
  const follow = query['follow'] !== false && query['follow'] !== 'false';
  deps.logStreams.serve(res, { tail, heartbeatSec, follow });
};
