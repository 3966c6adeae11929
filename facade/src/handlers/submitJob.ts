import { TtsError } from '@tts/common';
import { JobOwnerKind } from '@tts/proto/scheduler';
import { jobJson, jobSpecOf } from '../domain/jobs.js';
import { speechRequestOf } from '../domain/speech-request.js';
import { callerOf } from '../middleware/access.js';
import { setQuotaStage } from '../presenters/audio.js';
import type { OperationHandler } from '../handler-context.js';

/**
 * POST /api/jobs/tts: queues a job owned by the calling API key (202). The text counts against the
 * key's quota when the job is accepted.
 */
export const submitJob: OperationHandler<'submitJob'> = async ({ body, res, deps, requestId }) => {
  const caller = callerOf(res);
  if (body.mode === 'clone' || body.reference_id !== undefined) {
    throw new TtsError('TTS_MODE_UNSUPPORTED', 'Clone requests are served by POST /api/tts; jobs do not clone yet.', { loc: ['body', body.mode === 'clone' ? 'mode' : 'reference_id'] });
  }
  const request = await speechRequestOf({ kind: 'tts', body }, { cluster: deps.cluster, defaultVoice: deps.config.defaultVoice });
  const spec = await jobSpecOf(request, deps.cluster);
  const owner = caller.method === 'api_key'
    ? { id: caller.key.record.keyId, kind: JobOwnerKind.JOB_OWNER_KIND_API_KEY, tier: caller.key.tier.name }
    : { id: caller.method === 'challenge' ? caller.subject : 'admin', kind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' };
  const metered = { endpoint: 'POST /api/jobs/tts', requestId, characters: body.text.length, textField: 'text', mode: request.mode, consentConfirmed: request.consentConfirmed };
  await deps.metering.run(caller, metered, async (quota) => {
    setQuotaStage(res, quota);
    const job = await deps.jobs.submit(spec, owner, requestId);
    const self = `/api/jobs/${job.jobId}`;
    res.status(202).setHeader('Location', self);
    res.json(jobJson(job, { self, audio: `${self}/audio` }));
    return 0;
  });
};
