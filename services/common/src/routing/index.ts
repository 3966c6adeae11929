/**
 * Routing of synchronous requests to inference nodes: the policies and the one decision (with its
 * errors) that the scheduler's PickNode and the facade's lookaside router both use.
 */
export {
  ROUTING_POLICIES,
  candidates,
  chargeRouted,
  costSeconds,
  offeringVoice,
  voiceLoadSeconds,
  createRoutingPolicy,
  estimateOn,
  fitsBudget,
  OVERSIZED_START_SHARE,
  requiredEngine,
  secondsUntilFit,
  SESSION_ROUTE_CHARACTERS,
  startSeconds,
  type FairShare,
  type RoutedWork,
  type RoutableNode,
  type RouteDecision,
  type RouteRequest,
  type RoutingPolicy,
  type RoutingPolicyName,
} from './policy.js';
export { RETRY_ON_ANOTHER_NODE, routeOrError } from './route.js';
