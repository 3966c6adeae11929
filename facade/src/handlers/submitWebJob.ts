import { JobOwnerKind } from '@tts/proto/scheduler';
import { jobSpecOf } from '../domain/jobs.js';
import { speechRequestOf } from '../domain/speech-request.js';
import { rateLimitView, RATE_PROFILES } from '../identity/index.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../handler-context.js';

/**
 * POST /api/web/jobs/tts (multipart form, anti-bot pass, public rate profile): queues a web job and
 * answers its job token.
 */
export const submitWebJob: OperationHandler<'submitWebJob'> = async ({ body, res, deps, requestId }) => {
  const caller = callerOf(res);
  const request = await speechRequestOf({ kind: 'web', body }, { cluster: deps.cluster, defaultVoice: deps.config.defaultVoice });
  const spec = await jobSpecOf(request, deps.cluster);
  const owner = { id: caller.method === 'challenge' || caller.method === 'api_key' ? caller.subject : 'anonymous', kind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' };
  const metered = { endpoint: 'POST /api/web/jobs/tts', requestId, characters: body.text.length, textField: 'text', mode: request.mode, consentConfirmed: request.consentConfirmed };
  await deps.metering.run(caller, metered, async () => {
    const job = await deps.jobs.submit(spec, owner, requestId);
    const { token, expiresUnix } = deps.jobTokens.issue(job.jobId);
    const decision = res.locals.rateLimit;
    const rule = RATE_PROFILES.challenge;
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      ok: true,
      job_id: job.jobId,
      job_token: token,
      job_token_expires_unix: expiresUnix,
      status: 'queued',
      rate_limit: decision ? rateLimitView(decision) : { remaining: rule.limit, limit: rule.limit, reset_unix: Math.floor(Date.now() / 1000) + rule.windowSec, window_sec: rule.windowSec },
      links: { self: `/api/web/jobs/${job.jobId}`, events: `/api/web/jobs/${job.jobId}/events`, audio: `/api/web/jobs/${job.jobId}/audio` },
    });
    return 0;
  });
};
