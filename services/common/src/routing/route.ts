/**
 * One routing decision with the platform's answers when there is none: the same errors whether the
 * scheduler routes (PickNode) or the facade does (lookaside routing).
 */
import type { ErrorCode } from '../errors/catalogue.js';
import { TtsError } from '../errors/tts-error.js';
import { candidates, chargeRouted, estimateOn, fitsBudget, requiredEngine, secondsUntilFit, type RoutableNode, type RouteDecision, type RouteRequest, type RoutingPolicy } from './policy.js';

/**
 * Failures of a call to a node after which the same request may go to another node (the node is
 * full, draining, lost its engine or failed), as long as nothing of its answer was delivered.
 */
export const RETRY_ON_ANOTHER_NODE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'TTS_ENGINE_FAILED',
  'TTS_NODE_OVERLOADED',
  'SERVICE_SHUTTING_DOWN',
  'TTS_ENGINE_UNAVAILABLE',
  'TTS_NO_NODE_AVAILABLE',
]);

/**
 * Chooses a node for `req` among `ready` with `policy` and charges the request's estimated cost
 * to the chosen node's routed work (chargeRouted: its total, its engine's and its tenant's).
 *
 * Throws TTS_ENGINE_NOT_FOUND / TTS_VOICE_NOT_FOUND when no node of `all` (healthy or not) has
 * ever offered the engine the request needs, TTS_ENGINE_UNAVAILABLE when ready nodes exist but
 * none can serve it, TTS_OVERLOADED for a session when the nodes that could serve it have no
 * session place, and TTS_NO_NODE_AVAILABLE when no node is ready.
 *
 * Admission: with `req.budgetSeconds`, a policy's choice that does not fit the budget (fitsBudget)
 * gives way to the candidate with the earliest estimated finish; when that one does not fit either,
 * throws TTS_OVERLOADED, its Retry-After the seconds by which the estimate overruns the budget
 * (the time the queue ahead needs to drain that much; secondsUntilFit), and charges no node.
 */
export function routeOrError<N extends RoutableNode>(all: readonly N[], ready: readonly N[], policy: RoutingPolicy, req: RouteRequest): RouteDecision<N> {
  const engine = requiredEngine(req);
  if (engine !== '' && !all.some((e) => e.status.engines.some((x) => x.name === engine))) {
    // No node of this deployment has ever offered the engine: the request names something that does not exist.
    throw req.engine !== ''
      ? new TtsError('TTS_ENGINE_NOT_FOUND', `Engine "${req.engine}" does not exist.`, { loc: ['engine'] })
      : new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${req.voice}" does not exist.`, { loc: ['voice'] });
  }
  const able = candidates(ready, req);
  let decision = policy.choose(able, req);
  if (!decision && req.session === true && candidates(ready, { ...req, session: false }).length > 0) {
    throw new TtsError('TTS_OVERLOADED', 'Every node that could hold the session holds as many interactive sessions as it admits.', { retryAfterSec: 1 });
  }
  if (!decision) {
    throw ready.length > 0 && engine !== ''
      ? new TtsError('TTS_ENGINE_UNAVAILABLE', `No ready node has engine "${engine}" loaded.`, { retryAfterSec: 5 })
      : new TtsError('TTS_NO_NODE_AVAILABLE', 'No inference node is ready.', { retryAfterSec: 2 });
  }
  if (!fitsBudget(decision, req.budgetSeconds)) {
    decision = earliestFinish(able, req);
    if (!fitsBudget(decision, req.budgetSeconds)) throw overloaded(decision, req.budgetSeconds ?? 0);
  }
  chargeRouted(decision.entry, engine, req.tenant ?? '', decision.costSeconds);
  return decision;
}

/** The candidate (at least one) where the request would finish first. */
function earliestFinish<N extends RoutableNode>(able: readonly N[], req: RouteRequest): RouteDecision<N> {
  let best: RouteDecision<N> | undefined;
  for (const entry of able) {
    const d = estimateOn(entry, req);
    if (!best || d.startSeconds + d.costSeconds < best.startSeconds + best.costSeconds) best = d;
  }
  return best!;
}

/** The refusal of a request the queue would make miss its budget. */
function overloaded(d: RouteDecision, budgetSeconds: number): TtsError {
  return new TtsError('TTS_OVERLOADED', `Estimated wait ${d.startSeconds.toFixed(1)} s plus synthesis ${d.costSeconds.toFixed(1)} s exceeds the request's ${budgetSeconds.toFixed(1)} s.`, {
    retryAfterSec: Math.max(1, Math.ceil(secondsUntilFit(d, budgetSeconds))),
  });
}
