/**
 * One routing decision with the platform's answers when there is none: the same errors whether the
 * scheduler routes (PickNode) or the facade does (lookaside routing).
 */
import { TtsError } from '../errors/tts-error.js';
import { candidates, requiredEngine, type RoutableNode, type RouteDecision, type RouteRequest, type RoutingPolicy } from './policy.js';

/**
 * Chooses a node for `req` among `ready` with `policy` and charges the request's estimated cost
 * to the chosen node's `routedSinceReport`.
 *
 * Throws TTS_ENGINE_NOT_FOUND / TTS_VOICE_NOT_FOUND when no node of `all` (healthy or not) has
 * ever offered the engine the request needs, TTS_ENGINE_UNAVAILABLE when ready nodes exist but
 * none can serve it, and TTS_NO_NODE_AVAILABLE when no node is ready.
 */
export function routeOrError<N extends RoutableNode>(all: readonly N[], ready: readonly N[], policy: RoutingPolicy, req: RouteRequest): RouteDecision<N> {
  const engine = requiredEngine(req);
  if (engine !== '' && !all.some((e) => e.status.engines.some((x) => x.name === engine))) {
    // No node of this deployment has ever offered the engine: the request names something that does not exist.
    throw req.engine !== ''
      ? new TtsError('TTS_ENGINE_NOT_FOUND', `Engine "${req.engine}" does not exist.`, { loc: ['engine'] })
      : new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${req.voice}" does not exist.`, { loc: ['voice'] });
  }
  const decision = policy.choose(candidates(ready, req), req);
  if (!decision) {
    throw ready.length > 0 && engine !== ''
      ? new TtsError('TTS_ENGINE_UNAVAILABLE', `No ready node has engine "${engine}" loaded.`, { retryAfterSec: 5 })
      : new TtsError('TTS_NO_NODE_AVAILABLE', 'No inference node is ready.', { retryAfterSec: 2 });
  }
  decision.entry.routedSinceReport += decision.costSeconds;
  return decision;
}
