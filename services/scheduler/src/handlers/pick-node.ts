import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { PickNodeRequest, PickNodeResponse } from '../../../../gen/tts/v1/scheduler.js';
import { TtsError } from '../../../common/src/errors/tts-error.js';
import { toServiceError } from '../../../common/src/grpc/errors.js';
import { candidates, requiredEngine } from '../domain/routing.js';
import type { SchedulerContext } from '../domain/scheduler-context.js';

/** PickNode: chooses the node for a synchronous synthesis by the configured policy. */
export function pickNode(ctx: SchedulerContext) {
  return (call: ServerUnaryCall<PickNodeRequest, PickNodeResponse>, callback: sendUnaryData<PickNodeResponse>): void => {
    const req = {
      voice: call.request.voice,
      engine: call.request.engine,
      characters: call.request.characters,
      excludeNodeIds: call.request.excludeNodeIds,
    };
    const engine = requiredEngine(req);
    if (engine !== '' && !ctx.membership.all().some((e) => e.status.engines.some((x) => x.name === engine))) {
      // No node of this deployment has ever offered the engine: the request names something that does not exist.
      const err = req.engine !== ''
        ? new TtsError('TTS_ENGINE_NOT_FOUND', `Engine "${req.engine}" does not exist.`, { loc: ['engine'] })
        : new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${req.voice}" does not exist.`, { loc: ['voice'] });
      callback(toServiceError(err));
      return;
    }
    const ready = ctx.membership.ready();
    const decision = ctx.policy.choose(candidates(ready, req), req);
    if (!decision) {
      const err = ready.length > 0 && engine !== ''
        ? new TtsError('TTS_ENGINE_UNAVAILABLE', `No ready node has engine "${engine}" loaded.`, { retryAfterSec: 5 })
        : new TtsError('TTS_NO_NODE_AVAILABLE', 'No inference node is ready.', { retryAfterSec: 2 });
      callback(toServiceError(err));
      return;
    }
    decision.entry.routedSinceReport += decision.costSeconds;
    callback(null, {
      nodeId: decision.entry.status.nodeId,
      address: decision.entry.status.address,
      estimatedStartSeconds: decision.startSeconds,
    });
  };
}
