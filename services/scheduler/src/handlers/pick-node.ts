import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { PickNodeRequest, PickNodeResponse } from '@tts/proto/scheduler';
import { toServiceError } from '@tts/common';
import { routeOrError } from '../domain/routing.js';
import type { SchedulerContext } from '../domain/scheduler-context.js';
import { callerOf, requirePlatform } from './callers.js';

/**
 * PickNode: chooses the node for a synchronous synthesis by the configured policy (platform
 * components only). The facade routes locally from ListNodes (lookaside) with the same decision;
 * this stays for other callers.
 */
export function pickNode(ctx: SchedulerContext) {
  return (call: ServerUnaryCall<PickNodeRequest, PickNodeResponse>, callback: sendUnaryData<PickNodeResponse>): void => {
    callerOf(ctx, call.metadata)
      .then((caller) => {
        requirePlatform(caller);
        const decision = routeOrError(ctx.membership.all(), ctx.membership.ready(), ctx.policy, {
          voice: call.request.voice,
          engine: call.request.engine,
          characters: call.request.characters,
          excludeNodeIds: call.request.excludeNodeIds,
        });
        callback(null, { nodeId: decision.entry.status.nodeId, address: decision.entry.status.address, estimatedStartSeconds: decision.startSeconds });
      })
      .catch((err: unknown) => callback(toServiceError(err)));
  };
}
