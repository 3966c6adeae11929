import { isTerminalJobState, TtsError } from '@tts/common';
import { jobTokenOf, ownerDeleted } from '../job-access.js';
import { eventJson, stateName } from '../jobs-gateway.js';
import { handler } from '../../handler-context.js';

/** GET /api/web/jobs/{job_id}/events: events after after_event_id (an empty page past the last one). */
export const listWebJobEvents = handler('listWebJobEvents', ['access', 'jobTokens', 'jobs'], async ({ req, params, query, res, deps }) => {
  const jobId = params.job_id;
  deps.jobTokens.verify(jobTokenOf(req.get('x-job-token'), query.token), jobId);
  const job = await deps.jobs.get(jobId);
  if (!job || (await ownerDeleted(deps, job))) throw new TtsError('JOB_NOT_FOUND');
  const after = query.after_event_id ?? 0;
  const limit = query.limit ?? 200;
  const page = await deps.jobs.events(jobId, after, limit);
  const last = page.events[page.events.length - 1];
  res.json({
    job_id: jobId,
    status: stateName(page.state),
    done: isTerminalJobState(page.state) && (last?.eventId ?? after) >= page.lastEventId,
    last_event_id: page.lastEventId,
    next_after_event_id: last?.eventId ?? after,
    events: page.events.map(eventJson),
  });
});
