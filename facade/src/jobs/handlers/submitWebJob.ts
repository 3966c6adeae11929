import { cloneSpecOf, requireConsent, webCloneSourceOf } from '../../speech/clone-request.js';
import { jobSpecOf } from '../jobs-gateway.js';
import { speechRequestOf } from '../../speech/speech-request.js';
import { rateLimitView, RATE_PROFILES } from '../../identity/index.js';
import { webJobOwnerOf } from '../../identity/owner.js';
import { callerOf } from '../../middleware/access.js';
import { webFormWithPreset } from '../../studio/preset-speech.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/web/jobs/tts (multipart form; anti-bot pass, API key or studio session): queues a web job
 * and answers its job token. A studio session owns its jobs as the studio user (listed on every
 * session of the user) and may name one of its presets. An API key or a studio user may clone one
 * of its own stored reference clips (`reference_id`, with consent).
 */
export const submitWebJob = handler('submitWebJob', ['cluster', 'config', 'jobTokens', 'jobUsage', 'jobs', 'lexicons', 'metering', 'references', 'studio'], async ({ body, res, deps, requestId }) => {
  const caller = callerOf(res);
  const { form, speed } = await webFormWithPreset(body, caller, deps.studio.presets);
  const lexicon = await deps.lexicons.forSpeech(caller, form.preset_id);
  const parsed = await speechRequestOf({ kind: 'web', body: form }, { cluster: deps.cluster, defaultVoice: deps.config.defaultVoice, lexicon });
  const request = speed === undefined || (body.speed !== undefined && body.speed !== '') ? parsed : { ...parsed, speech: { ...parsed.speech, speed } };
  const cloning = webCloneSourceOf(form, caller);
  const base = await jobSpecOf(request, deps.cluster);
  const owner = webJobOwnerOf(caller);
  const metered = { endpoint: 'POST /api/web/jobs/tts', requestId, characters: body.text.length, textField: 'text', mode: cloning ? 'clone' : request.mode, consentConfirmed: request.consentConfirmed, synchronous: false };
  await deps.metering.run(caller, metered, async () => {
    // A clone job carries the caller's stored clip to the node that runs it.
    const spec = cloning ? { ...base, mode: 'clone', speech: base.speech && { ...base.speech, clone: await cloneSpecOf(cloning, caller, deps) } } : base;
    const job = await deps.jobs.submit(spec, owner, requestId);
    // Its audio is counted once it ends (jobs/job-usage.ts).
    await deps.jobUsage.submitted(requestId, job.jobId);
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
    return 0;
  }, cloning ? () => requireConsent(request.consentConfirmed) : undefined);
});
