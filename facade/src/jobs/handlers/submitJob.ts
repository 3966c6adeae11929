import { JobOwnerKind } from '@tts/proto/scheduler';
import { cloneSourceOf, cloneSpecOf, requireConsent } from '../../speech/clone-request.js';
import { jobJson, jobSpecOf } from '../jobs-gateway.js';
import { speechRequestOf } from '../../speech/speech-request.js';
import { callerOf } from '../../middleware/access.js';
import { setQuotaStage } from '../../presenters/audio.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/jobs/tts: queues a job owned by the calling API key (202). The text counts against the
 * key's quota when the job is accepted.
 */
export const submitJob = handler('submitJob', ['cluster', 'config', 'jobUsage', 'jobs', 'lexicons', 'metering', 'references'], async ({ body, res, deps, requestId }) => {
  const caller = callerOf(res);
  // The job keeps the lexicon of its submission (stored with its spec).
  const request = await speechRequestOf({ kind: 'tts', body }, { cluster: deps.cluster, defaultVoice: deps.config.defaultVoice, lexicon: await deps.lexicons.forSpeech(caller, undefined) });
  const cloning = cloneSourceOf(body, undefined);
  const base = await jobSpecOf(request, deps.cluster);
  const owner = caller.method === 'api_key'
    ? { id: caller.key.record.keyId, kind: JobOwnerKind.JOB_OWNER_KIND_API_KEY, tier: caller.key.tier.name }
    : { id: caller.method === 'challenge' ? caller.subject : 'admin', kind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' };
  const metered = { endpoint: 'POST /api/jobs/tts', requestId, characters: body.text.length, textField: 'text', mode: cloning ? 'clone' : request.mode, consentConfirmed: request.consentConfirmed, synchronous: false };
  await deps.metering.run(caller, metered, async (quota) => {
    setQuotaStage(res, quota);
    // A clone job carries its reference clip (the key's stored clip) to the node that runs it.
    const spec = cloning ? { ...base, mode: 'clone', speech: base.speech && { ...base.speech, clone: await cloneSpecOf(cloning, caller, deps) } } : base;
    const job = await deps.jobs.submit(spec, owner, requestId);
    // Its audio is counted once it ends (jobs/job-usage.ts).
    await deps.jobUsage.submitted(requestId, job.jobId);
    const self = `/api/jobs/${job.jobId}`;
    res.status(202).setHeader('Location', self);
    res.json(jobJson(job, { self, audio: `${self}/audio` }));
    return 0;
  }, cloning ? () => requireConsent(request.consentConfirmed) : undefined);
});
