import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { PickNodeRequest, PickNodeResponse } from '@tts/proto/scheduler';
import { toServiceError } from '@tts/common';
import { routeOrError } from '../domain/routing.js';
import type { SchedulerContext } from '../domain/scheduler-context.js';

/**
 * PickNode: chooses the node for a synchronous synthesis by the configured policy. The facade
 * routes locally from ListNodes (lookaside) with the same decision; this stays for other callers.
 */
export function pickNode(ctx: SchedulerContext) {
  return (call: ServerUnaryCall<PickNodeRequest, PickNodeResponse>, callback: sendUnaryData<PickNodeResponse>): void => {
    const req = {
      voice: call.request.voice,
      engine: call.request.engine,
      characters: call.request.characters,
      excludeNodeIds: call.request.excludeNodeIds,
    };
    let decision;
    try {
      decision = routeOrError(ctx.membership.all(), ctx.membership.ready(), ctx.policy, req);
    } catch (err) {
      callback(toServiceError(err));
      return;
    }
    callback(null, {
      nodeId: decision.entry.status.nodeId,
      address: decision.entry.status.address,
      estimatedStartSeconds: decision.startSeconds,
    });
  };
}
