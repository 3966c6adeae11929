import { openEventStream } from '../../presenters/event-stream.js';
import { handler } from '../../handler-context.js';

/** GET /api/logs/stream: the last `tail` log lines, then live lines and heartbeats, as Server-Sent Events. */
export const streamLogs = handler('streamLogs', ['logStreams'], async ({ query, res, deps }) => {
  // Query values arrive coerced and bounded by the OpenAPI validator (tail 0..200, heartbeat_sec 0.5..30).
  const tail = query.tail ?? 30;
  const heartbeatSec = query.heartbeat_sec ?? 2;
  const follow = query.follow ?? true;
  deps.logStreams.serve(openEventStream(res), { tail, heartbeatSec, follow });
});
