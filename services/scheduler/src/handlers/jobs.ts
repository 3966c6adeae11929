import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type {
  CancelJobRequest,
  CancelJobResponse,
  GetJobRequest,
  GetJobResponse,
  GetQueueStatsRequest,
  GetQueueStatsResponse,
  ListJobEventsRequest,
  ListJobEventsResponse,
  ListJobsRequest,
  ListJobsResponse,
  SubmitJobRequest,
  SubmitJobResponse,
} from '@tts/proto/scheduler';
import { JobOwnerKind } from '@tts/proto/scheduler';
import { toServiceError } from '@tts/common';
import { TtsError } from '@tts/common';
import { isUnavailable } from '@tts/common/data';
import type { SchedulerContext } from '../domain/scheduler-context.js';
import { callerOf, checkVisible, visibleJob, type Caller } from './callers.js';
import { eventMessage, jobMessage, ownerKindOf, specOf, stateMessage } from './job-messages.js';

type Unary<Req, Res> = (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void;

/**
 * The gRPC error of a failed job call: a catalogue error as it is, a database out of reach (or of
 * space) JOB_STORE_UNAVAILABLE (503, retry after 2 s). Unary and streaming job calls answer alike.
 */
export function jobCallError(err: unknown): ReturnType<typeof toServiceError> {
  return toServiceError(isUnavailable(err) ? new TtsError('JOB_STORE_UNAVAILABLE', undefined, { retryAfterSec: 2, cause: err }) : err);
}

/** Adapts an async function to a unary handler: the caller is authenticated first (callers.ts); failures as jobCallError. */
function unary<Req, Res>(ctx: SchedulerContext, fn: (request: Req, caller: Caller) => Promise<Res>): Unary<Req, Res> {
  return (call, callback) => {
    callerOf(ctx, call.metadata).then((caller) => fn(call.request, caller)).then(
      (res) => callback(null, res),
      (err: unknown) => callback(jobCallError(err)),
    );
  };
}

/** Page size bounds of the list RPCs. */
const clampLimit = (limit: number, fallback: number, max: number): number => (limit === 0 ? fallback : Math.min(max, Math.max(1, limit)));

/** The owner a job is submitted for: the request's for a platform component, the key's own for an API key. */
function ownerOf(req: SubmitJobRequest, caller: Caller): { ownerId: string; ownerKind: ReturnType<typeof ownerKindOf>; tier: string } {
  if (caller.kind === 'platform') return { ownerId: req.ownerId, ownerKind: ownerKindOf(req.ownerKind), tier: req.tier };
  const named = (req.ownerId !== '' && req.ownerId !== caller.keyId) || (req.tier !== '' && req.tier !== caller.tier) || ![JobOwnerKind.JOB_OWNER_KIND_UNSPECIFIED, JobOwnerKind.JOB_OWNER_KIND_API_KEY].includes(req.ownerKind);
  if (named) throw new TtsError('GRPC_CALLER_FORBIDDEN', 'An API key submits jobs as its own owner and tier only.', { loc: ['owner_id'] });
  return { ownerId: caller.keyId, ownerKind: 'api_key', tier: caller.tier };
}

/** SubmitJob: records and queues a job (owner and tier from the caller's credential, see ownerOf). */
export function submitJob(ctx: SchedulerContext): Unary<SubmitJobRequest, SubmitJobResponse> {
  return unary(ctx, async (req, caller) => {
    const job = await ctx.jobs.submit({
      ...ownerOf(req, caller),
      requestId: req.requestId,
      spec: specOf(req.spec),
    });
    ctx.logger.info('job submitted', { job_id: job.jobId, owner_kind: job.ownerKind, tier: job.tier, characters: job.characters, request_id: req.requestId || undefined });
    return { job: jobMessage(job) };
  });
}

/** GetJob: the job record. */
export function getJob(ctx: SchedulerContext): Unary<GetJobRequest, GetJobResponse> {
  return unary(ctx, async (req, caller) => ({ job: jobMessage(visibleJob(caller, await ctx.jobs.get(req.jobId))) }));
}

/** ListJobs: an owner's jobs, most recent first (limit 1..500, default 30); an API key lists its own. */
export function listJobs(ctx: SchedulerContext): Unary<ListJobsRequest, ListJobsResponse> {
  return unary(ctx, async (req, caller) => {
    if (caller.kind === 'api_key') return { jobs: (await ctx.jobs.list(caller.keyId, clampLimit(req.limit, 30, 500), 'api_key')).map(jobMessage) };
    const kind = req.ownerKind === JobOwnerKind.JOB_OWNER_KIND_UNSPECIFIED ? undefined : ownerKindOf(req.ownerKind);
    return { jobs: (await ctx.jobs.list(req.ownerId, clampLimit(req.limit, 30, 500), kind)).map(jobMessage) };
  });
}

/** ListJobEvents: a page of events after an event id (limit 1..500, default 200). */
export function listJobEvents(ctx: SchedulerContext): Unary<ListJobEventsRequest, ListJobEventsResponse> {
  return unary(ctx, async (req, caller) => {
    await checkVisible(ctx, caller, req.jobId);
    const page = await ctx.jobs.events(req.jobId, req.afterEventId, clampLimit(req.limit, 200, 500));
    return { events: page.events.map(eventMessage), state: stateMessage(page.state), lastEventId: page.lastEventId };
  });
}

/** CancelJob: cancels an unfinished job. */
export function cancelJob(ctx: SchedulerContext): Unary<CancelJobRequest, CancelJobResponse> {
  return unary(ctx, async (req, caller) => {
    await checkVisible(ctx, caller, req.jobId);
    const { job, cancelled } = await ctx.jobs.cancel(req.jobId);
    if (cancelled) ctx.logger.info('job cancelled', { job_id: job.jobId });
    return { job: jobMessage(job), cancelled };
  });
}

/** GetQueueStats: queue depth, running jobs, nodes and an ETA. */
export function getQueueStats(ctx: SchedulerContext): Unary<GetQueueStatsRequest, GetQueueStatsResponse> {
  return unary(ctx, async () => {
    const s = await ctx.jobs.stats();
    return { queued: s.queued, running: s.running, nodesReady: s.nodesReady, nodesTotal: s.nodesTotal, capacity: s.capacity, etaSeconds: s.etaSeconds };
  });
}
