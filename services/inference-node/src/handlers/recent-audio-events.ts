import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { RecentAudioEventsRequest, RecentAudioEventsResponse } from '@tts/proto/synthesis';
import type { NodeContext } from '../domain/node-context.js';

/** RecentAudioEvents: the node's latest audio pipeline events, newest first. */
export function recentAudioEvents(ctx: NodeContext) {
  return (call: ServerUnaryCall<RecentAudioEventsRequest, RecentAudioEventsResponse>, callback: sendUnaryData<RecentAudioEventsResponse>): void => {
    callback(null, { events: ctx.deps.audioEvents?.recent(call.request.limit) ?? [] });
  };
}
