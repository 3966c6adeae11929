import { JobOwnerKind } from '@tts/proto/scheduler';
import { formBoolean, jobSpecFor } from '../domain/job-requests.js';
import type { RateLimitDecision } from '@tts/common/kv';
import { rateLimitView, RATE_PROFILES } from '../identity/index.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../operation.js';

interface WebJobForm {
  text: string;
  voice?: string;
  mode?: string;
  consent_confirmed?: string | boolean;
}

/**
 * POST /api/web/jobs/tts (multipart form, anti-bot pass, public rate profile): queues a web job and
 * answers its job token.
 */
export const submitWebJob: OperationHandler = async ({ req, res, deps, requestId }) => {
  const form = req.body as WebJobForm;
  const caller = callerOf(res);
  const consent = formBoolean(form.consent_confirmed);
  const spec = await jobSpecFor(deps, requestId, { text: form.text, voice: form.voice, mode: form.mode, consentConfirmed: consent, format: 'wav' });
  const owner = { id: caller.method === 'challenge' || caller.method === 'api_key' ? caller.subject : 'anonymous', kind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' };
  const metered = { endpoint: 'POST /api/web/jobs/tts', requestId, characters: form.text.length, textField: 'text', mode: form.mode ?? 'auto', consentConfirmed: consent ?? null };
  await deps.metering.run(res, caller, metered, async () => {
    const job = await deps.jobs.submit(spec, owner, requestId);
    const { token, expiresUnix } = deps.jobTokens.issue(job.jobId);
    const decision = res.locals['rateLimit'] as RateLimitDecision | undefined;
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
