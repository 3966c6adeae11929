import { rateLimitView, RATE_PROFILES } from '../../identity/index.js';
import { webJobOwnerOf } from '../../identity/owner.js';
import { callerOf } from '../../middleware/access.js';
import { webSettingsOf } from '../../speech/speech-request.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/web/jobs/tts (multipart form; anti-bot pass, API key or studio session): queues a web job
 * and answers its job token. A studio session owns its jobs as the studio user (listed on every
 * session of the user) and may name one of its presets. An API key or a studio user may clone one
 * of its own stored reference clips (`reference_id`, with consent).
 */
export const submitWebJob = handler('submitWebJob', ['jobTokens', 'speech'], async ({ body, res, deps, requestId }) => {
  const caller = callerOf(res);
  await deps.speech.speak(caller, { requestId, endpoint: 'POST /api/web/jobs/tts', text: body.text, settings: webSettingsOf(body) }, {
    kind: 'job',
    owner: webJobOwnerOf(caller),
    deliver: (job) => {
      const { token, expiresUnix } = deps.jobTokens.issue(job.jobId);
      const decision = res.locals.rateLimit;
      const rule = RATE_PROFILES[caller.method === 'studio' ? 'studio' : 'challenge'];
      res.json({
        ok: true,
        job_id: job.jobId,
        job_token: token,
        job_token_expires_unix: expiresUnix,
        status: 'queued',
        rate_limit: decision ? rateLimitView(decision) : { remaining: rule.limit, limit: rule.limit, reset_unix: Math.floor(Date.now() / 1000) + rule.windowSec, window_sec: rule.windowSec },
        links: { self: `/api/web/jobs/${job.jobId}`, events: `/api/web/jobs/${job.jobId}/events`, audio: `/api/web/jobs/${job.jobId}/audio` },
      });
    },
  });
});
