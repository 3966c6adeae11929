/**
 * Owner-scoped reads of API-family jobs: only the key that owns a job sees it; everyone else gets
 * the same 404 as for a job that does not exist. Every read is written to the job-access audit.
 */
import type { Job } from '@tts/proto/scheduler';
import { JobOwnerKind } from '@tts/proto/scheduler';
import { TtsError } from '@tts/common';
import type { Caller } from '../middleware/access.js';
import type { FacadeDeps } from '../handler-context.js';

/** The job if `caller` may read it; audits the read either way. Throws JOB_NOT_FOUND (404). */
export async function ownedJob(deps: Pick<FacadeDeps, 'jobs' | 'access'>, caller: Caller, jobId: string, endpoint: string, requestId: string): Promise<Job> {
  const job = await deps.jobs.get(jobId);
  const requesterKeyId = caller.method === 'api_key' ? caller.key.record.keyId : null;
  const ownerKeyId = job && job.ownerKind === JobOwnerKind.JOB_OWNER_KIND_API_KEY ? job.ownerId : null;
  const allowed = job !== undefined && (caller.method === 'admin' || (requesterKeyId !== null && requesterKeyId === ownerKeyId));
  await deps.access.audits.recordJobAccess({
    requestId,
    endpoint,
    jobId,
    requesterKind: caller.method === 'api_key' ? 'api_key' : caller.method === 'admin' ? 'admin' : 'anonymous',
    requesterKeyId,
    ownerKeyId,
    allowed,
    reason: job === undefined ? 'job_not_found' : allowed ? (caller.method === 'admin' ? 'admin' : 'owner') : 'not_owner',
  });
  if (!allowed || !job) throw new TtsError('JOB_NOT_FOUND', `No job ${jobId} is visible to this key.`);
  return job;
}

/**
 * A web job, if `token` grants access to it and its owner still exists (a deleted studio account's
 * jobs are not found); audits the read (denials from one client address aggregated, see
 * identity/denied-access.ts). Throws JOB_TOKEN_* or JOB_NOT_FOUND.
 */
export async function tokenJob(deps: Pick<FacadeDeps, 'jobs' | 'jobTokens' | 'access'>, token: string | undefined, jobId: string, endpoint: string, requestId: string, clientAddress: string): Promise<Job> {
  let reason = 'token';
  try {
    deps.jobTokens.verify(token, jobId);
  } catch (err) {
    reason = err instanceof TtsError ? err.code.toLowerCase() : 'token_invalid';
    await deps.access.audits.recordDeniedAccess({ requestId, endpoint, jobId, requesterKind: 'job_token', requesterKeyId: null, ownerKeyId: null, allowed: false, reason, clientAddress });
    throw err;
  }
  const job = await deps.jobs.get(jobId);
  const ownerGone = job !== undefined && (await ownerDeleted(deps, job));
  await deps.access.audits.recordJobAccess({
    requestId, endpoint, jobId, requesterKind: 'job_token', requesterKeyId: null, ownerKeyId: null, allowed: job !== undefined && !ownerGone, reason: !job ? 'job_not_found' : ownerGone ? 'owner_deleted' : reason, clientAddress,
  });
  if (!job || ownerGone) throw new TtsError('JOB_NOT_FOUND');
  return job;
}

/** True when `job` belonged to a studio account since deleted: its job tokens answer as for a job that never existed. */
export async function ownerDeleted(deps: Pick<FacadeDeps, 'access'>, job: Job): Promise<boolean> {
  return job.ownerKind === JobOwnerKind.JOB_OWNER_KIND_STUDIO && !(await deps.access.studio.isLiveUser(job.ownerId));
}

/** The job token of a web request: X-Job-Token header, else the token query parameter. */
export function jobTokenOf(header: string | undefined, query: unknown): string | undefined {
  if (header !== undefined && header !== '') return header;
  return typeof query === 'string' && query !== '' ? query : undefined;
}
