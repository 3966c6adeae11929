/**
 * Who is calling (from the call's metadata; see @tts/common's caller credentials) and what that
 * caller may see. Platform components (the internal token; or any caller when the scheduler runs
 * on loopback or a Unix socket without one) act for the owner the request names. An API key
 * (checked by the context's `CallerAuthenticator`, domain/caller-authenticator.ts) acts as its own
 * owner and tier only: it cannot submit for someone else, and another owner's job is "not found"
 * to it.
 */
import type { Metadata } from '@grpc/grpc-js';
import { CREDENTIAL_METADATA, TtsError, metadataValue, sameSecret } from '@tts/common';
import type { JobRecord } from '../data/jobs.js';
import type { SchedulerContext } from '../domain/scheduler-context.js';

/** An authenticated caller. */
export type Caller = { readonly kind: 'platform' } | { readonly kind: 'api_key'; readonly keyId: string; readonly tier: string };

/** The caller of a call; throws GRPC_CALLER_UNAUTHENTICATED (or AUTH_KEY_DISABLED) otherwise. */
export async function callerOf(ctx: SchedulerContext, metadata: Metadata): Promise<Caller> {
  const apiKey = metadataValue(metadata, CREDENTIAL_METADATA.apiKey);
  if (apiKey !== undefined) {
    const verified = await ctx.callers.verifyApiKey(apiKey);
    if (verified === 'disabled') throw new TtsError('AUTH_KEY_DISABLED');
    if (verified === 'invalid') throw new TtsError('GRPC_CALLER_UNAUTHENTICATED', 'The API key is malformed or unknown.');
    return { kind: 'api_key', keyId: verified.keyId, tier: verified.tier };
  }
  const authorization = metadataValue(metadata, CREDENTIAL_METADATA.internal);
  const { internalToken } = ctx.config;
  if (internalToken === undefined) return { kind: 'platform' };
  const token = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  if (!sameSecret(token, internalToken)) throw new TtsError('GRPC_CALLER_UNAUTHENTICATED');
  return { kind: 'platform' };
}

/** Only platform components (routing and node views); throws GRPC_CALLER_FORBIDDEN for an API key. */
export function requirePlatform(caller: Caller): void {
  if (caller.kind !== 'platform') throw new TtsError('GRPC_CALLER_FORBIDDEN', 'This call is reserved to platform components.');
}

/** The job when the caller may see it; JOB_NOT_FOUND otherwise (another owner's job is not revealed). */
export function visibleJob(caller: Caller, job: JobRecord): JobRecord {
  if (caller.kind === 'api_key' && (job.ownerKind !== 'api_key' || job.ownerId !== caller.keyId)) throw new TtsError('JOB_NOT_FOUND', undefined, { loc: ['job_id'] });
  return job;
}

/** Throws JOB_NOT_FOUND unless the caller may see job `jobId` (a platform caller sees every job: nothing is read). */
export async function checkVisible(ctx: SchedulerContext, caller: Caller, jobId: string): Promise<void> {
  if (caller.kind === 'api_key') visibleJob(caller, await ctx.jobs.get(jobId));
}

/** Admits a node's RegisterNode / Heartbeat: the join token when one is configured; NODE_JOIN_REFUSED otherwise. */
export function admitNode(ctx: SchedulerContext, metadata: Metadata): void {
  const { nodeJoinToken } = ctx.config;
  if (nodeJoinToken !== undefined && !sameSecret(metadataValue(metadata, CREDENTIAL_METADATA.node), nodeJoinToken)) throw new TtsError('NODE_JOIN_REFUSED');
}
