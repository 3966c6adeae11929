import { JobOwnerKind } from '@tts/proto/scheduler';
import { jobSpecFor } from '../domain/job-requests.js';
import { jobJson } from '../domain/jobs.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../operation.js';
import type { TtsBody } from './ttsSynthesize.js';

/**
 * POST /api/jobs/tts: queues a job owned by the calling API key (202). The text counts against the
 * key's quota when the job is accepted.
 */
export const submitJob: OperationHandler = async ({ req, res, deps, requestId }) => {
  const body = req.body as TtsBody;
  const caller = callerOf(res);
  const spec = await jobSpecFor(deps, requestId, {
    text: body.text, voice: body.voice, engine: body.engine, mode: body.mode, format: body.format, speed: body.speed,
    sampleRate: body.sample_rate, language: body.language, consentConfirmed: body.consent_confirmed, normalize: body.normalize,
  });
  const owner = caller.method === 'api_key'
    ? { id: caller.key.record.keyId, kind: JobOwnerKind.JOB_OWNER_KIND_API_KEY, tier: caller.key.tier.name }
    : { id: caller.method === 'challenge' ? caller.subject : 'admin', kind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' };
  const metered = { endpoint: 'POST /api/jobs/tts', requestId, characters: body.text.length, textField: 'text', mode: body.mode ?? 'auto', consentConfirmed: body.consent_confirmed ?? null };
  await deps.metering.run(res, caller, metered, async () => {
    const job = await deps.jobs.submit(spec, owner, requestId);
    const self = `/api/jobs/${job.jobId}`;
    res.status(202).setHeader('Location', self);
    res.json(jobJson(job, { self, audio: `${self}/audio` }));
    return 0;
  });
};
