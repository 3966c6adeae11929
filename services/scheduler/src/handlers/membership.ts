import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type {
  HeartbeatRequest,
  HeartbeatResponse,
  ListNodesRequest,
  ListNodesResponse,
  RegisterNodeRequest,
  RegisterNodeResponse,
} from '@tts/proto/scheduler';
import { TtsError, toServiceError } from '@tts/common';
import type { SchedulerContext } from '../domain/scheduler-context.js';
import { admitNode, callerOf, requirePlatform } from './callers.js';

/** RegisterNode: a node announces itself with its first status (with the join credential when one is configured). */
export function registerNode(ctx: SchedulerContext) {
  return (call: ServerUnaryCall<RegisterNodeRequest, RegisterNodeResponse>, callback: sendUnaryData<RegisterNodeResponse>): void => {
    const status = call.request.status;
    try {
      admitNode(ctx, call.metadata);
    } catch (err) {
      ctx.logger.warn('node refused: no valid join credential', { address: status?.address, node_id: status?.nodeId });
      callback(toServiceError(err));
      return;
    }
    if (!status || status.address === '') {
      callback(toServiceError(new TtsError('VALIDATION_FAILED', 'status.address is required.', { loc: ['status', 'address'] })));
      return;
    }
    const nodeId = ctx.membership.register(status);
    ctx.logger.info('node registered', { node_id: nodeId, address: status.address });
    ctx.jobs.kick();
    callback(null, { nodeId, heartbeatIntervalMs: ctx.config.heartbeatMs });
  };
}

/** Heartbeat: a node reports its load; unknown nodes are told to register again. */
export function heartbeat(ctx: SchedulerContext) {
  return (call: ServerUnaryCall<HeartbeatRequest, HeartbeatResponse>, callback: sendUnaryData<HeartbeatResponse>): void => {
    const status = call.request.status;
    try {
      admitNode(ctx, call.metadata);
    } catch (err) {
      callback(toServiceError(err));
      return;
    }
    callback(null, { known: status !== undefined && ctx.membership.heartbeat(status) });
  };
}

/** ListNodes: every known node with its last report and health (platform components only). */
export function listNodes(ctx: SchedulerContext) {
  return (call: ServerUnaryCall<ListNodesRequest, ListNodesResponse>, callback: sendUnaryData<ListNodesResponse>): void => {
    callerOf(ctx, call.metadata)
      .then((caller) => {
        requirePlatform(caller);
        callback(null, {
          nodes: ctx.membership.all().map((e) => ({ status: e.status, lastHeartbeatUnixMs: e.lastHeartbeatMs, healthy: ctx.membership.healthy(e) })),
        });
      })
      .catch((err: unknown) => callback(toServiceError(err)));
  };
}
