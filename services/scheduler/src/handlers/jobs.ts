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
import type { SchedulerContext } from '../domain/scheduler-context.js';
import { eventMessage, jobMessage, ownerKindOf, specOf, stateMessage } from './job-messages.js';

type Unary<Req, Res> = (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void;

/** Adapts an async function to a unary handler; failures become catalogue gRPC errors. */
function unary<Req, Res>(fn: (request: Req) => Promise<Res>): Unary<Req, Res> {
  return (call, callback) => {
    fn(call.request).then(
      (res) => callback(null, res),
      (err: unknown) => callback(toServiceError(err)),
    );
  };
}

/** Page size bounds of the list RPCs. */
const clampLimit = (limit: number, fallback: number, max: number): number => (limit === 0 ? fallback : Math.min(max, Math.max(1, limit)));

/** SubmitJob: records and queues a job. */
export function submitJob(ctx: SchedulerContext): Unary<SubmitJobRequest, SubmitJobResponse> {
  return unary(async (req) => {
    const job = await ctx.jobs.submit({
      ownerId: req.ownerId,
      ownerKind: ownerKindOf(req.ownerKind),
      tier: req.tier,
      requestId: req.requestId,
      spec: specOf(req.spec),
    });
    ctx.logger.info('job submitted', { job_id: job.jobId, owner_kind: job.ownerKind, tier: job.tier, characters: job.characters, request_id: req.requestId || undefined });
    return { job: jobMessage(job) };
  });
}

/** GetJob: the job record. */
export function getJob(ctx: SchedulerContext): Unary<GetJobRequest, GetJobResponse> {
  return unary(async (req) => ({ job: jobMessage(await ctx.jobs.get(req.jobId)) }));
}

/** ListJobs: an owner's jobs, most recent first (limit 1..500, default 30). */
export function listJobs(ctx: SchedulerContext): Unary<ListJobsRequest, ListJobsResponse> {
  return unary(async (req) => {
    const kind = req.ownerKind === JobOwnerKind.JOB_OWNER_KIND_UNSPECIFIED ? undefined : ownerKindOf(req.ownerKind);
    return { jobs: (await ctx.jobs.list(req.ownerId, clampLimit(req.limit, 30, 500), kind)).map(jobMessage) };
  });
}

/** ListJobEvents: a page of events after an event id (limit 1..500, default 200). */
export function listJobEvents(ctx: SchedulerContext): Unary<ListJobEventsRequest, ListJobEventsResponse> {
  return unary(async (req) => {
    const page = await ctx.jobs.events(req.jobId, req.afterEventId, clampLimit(req.limit, 200, 500));
    return { events: page.events.map(eventMessage), state: stateMessage(page.state), lastEventId: page.lastEventId };
  });
}

/** CancelJob: cancels an unfinished job. */
export function cancelJob(ctx: SchedulerContext): Unary<CancelJobRequest, CancelJobResponse> {
  return unary(async (req) => {
    const { job, cancelled } = await ctx.jobs.cancel(req.jobId);
    if (cancelled) ctx.logger.info('job cancelled', { job_id: job.jobId });
    return { job: jobMessage(job), cancelled };
  });
}

/** GetQueueStats: queue depth, running jobs, nodes and an ETA. */
export function getQueueStats(ctx: SchedulerContext): Unary<GetQueueStatsRequest, GetQueueStatsResponse> {
  return unary(async () => {
    const s = await ctx.jobs.stats();
    return { queued: s.queued, running: s.running, nodesReady: s.nodesReady, nodesTotal: s.nodesTotal, capacity: s.capacity, etaSeconds: s.etaSeconds };
  });
}
