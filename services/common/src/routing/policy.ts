/**
 * Routing policies: which ready node should run a synchronous request. Pure code over the nodes'
 * last status reports, shared by the scheduler (PickNode) and the facade (lookaside routing).
 *
 * least-loaded: estimated finish time = (node's queued work + work routed since its last report)
 *   / its parallel capacity + this request's cost (characters x the node's measured seconds per
 *   character) + the time to load the voice again where the node unloaded it for idleness (its
 *   engine's last load time), so a node holding the voice wins unless it is busier by more than a
 *   reload; the better of two random candidates (power of two choices), among the nodes that offer
 *   the voice (loaded or not) when any do. Where the node reports the load of the engine the
 *   request needs (its slots, queued work and seconds per character), the estimate uses the
 *   engine's figures rather than the whole node's: a node's engines do not share their slots. For a
 *   request that names its tenant, the work ahead is its fair share (the node serves tenants by
 *   weighted fair queuing): its tenant's own work, and of every other tenant's only as much as the
 *   node does for that tenant while it does the request's tenant's (see startSeconds).
 * least-loaded-all: the same estimate, minimised over all candidates.
 * round-robin: in turn, for comparison.
 */
import type { NodeStatusReport } from '@tts/proto/synthesis';

/** Names of the routing policies. */
export const ROUTING_POLICIES = ['least-loaded', 'least-loaded-all', 'round-robin'] as const;
/** A routing policy name. */
export type RoutingPolicyName = (typeof ROUTING_POLICIES)[number];

/**
 * Characters routing counts for an interactive session, whose text is not known when it is routed:
 * about a sentence, its first piece.
 */
export const SESSION_ROUTE_CHARACTERS = 100;

/** A node as routing sees it: its last status report and the work routed to it since. */
export interface RoutableNode {
  readonly status: NodeStatusReport;
  /** Work routed here since the node's last report, in estimated compute seconds. */
  routedSinceReport: number;
  /**
   * The same work by engine, and each engine's by tenant; without it, all of routedSinceReport
   * counts ahead of a request for any engine.
   */
  routedByEngine?: Map<string, RoutedWork>;
}

/** Work routed to one engine of a node since its last report. */
export interface RoutedWork {
  /** Estimated compute seconds. */
  seconds: number;
  /** The seconds by tenant. */
  readonly byTenant: Map<string, number>;
}

/** Adds `seconds` of `tenant`'s work for `engine` to a node's routed work. */
export function chargeRouted(node: RoutableNode, engine: string, tenant: string, seconds: number): void {
  node.routedSinceReport += seconds;
  if (!node.routedByEngine) return;
  let w = node.routedByEngine.get(engine);
  if (!w) {
    w = { seconds: 0, byTenant: new Map() };
    node.routedByEngine.set(engine, w);
  }
  w.seconds += seconds;
  w.byTenant.set(tenant, (w.byTenant.get(tenant) ?? 0) + seconds);
}

/** What is known of a request when routing it. */
export interface RouteRequest {
  readonly voice: string;
  readonly engine: string;
  readonly characters: number;
  readonly excludeNodeIds: readonly string[];
  /**
   * Seconds the request may take from now (admission): a node where its estimated start plus its
   * own cost exceeds them is not chosen, and routeOrError refuses the request with TTS_OVERLOADED
   * when no candidate fits. Undefined = no admission check.
   */
  readonly budgetSeconds?: number | undefined;
  /**
   * Who the request is for (SynthesizeRequest.tenant_id): its wait is estimated under the nodes'
   * fair sharing between tenants. Undefined = behind all the work queued.
   */
  readonly tenant?: string | undefined;
  /** The tenant's weight in that sharing. @default 1 */
  readonly tenantWeight?: number | undefined;
  /**
   * An interactive session (SynthesizeInteractive), routed once for its life: only nodes with a
   * free session place (their last report) are candidates. Its text is unknown yet: `characters`
   * is what its first piece is likely to be. @default false
   */
  readonly session?: boolean | undefined;
}

/** The chosen node and the estimate that chose it. */
export interface RouteDecision<N extends RoutableNode = RoutableNode> {
  readonly entry: N;
  /** Estimated seconds of work queued ahead of the request. */
  readonly startSeconds: number;
  /** Estimated compute seconds of the request on that node. */
  readonly costSeconds: number;
}

/** Engine a request needs: the explicit engine, else the voice id's prefix, else none. */
export function requiredEngine(req: RouteRequest): string {
  if (req.engine !== '') return req.engine.toLowerCase() === 'espeak-ng' ? 'espeak' : req.engine.toLowerCase();
  const colon = req.voice.indexOf(':');
  return colon > 0 ? req.voice.slice(0, colon).toLowerCase() : '';
}

/** Nodes able to serve the request (a session: only those with a free session place). */
export function candidates<N extends RoutableNode>(ready: readonly N[], req: RouteRequest): N[] {
  const engine = requiredEngine(req);
  return ready.filter(
    (e) =>
      !req.excludeNodeIds.includes(e.status.nodeId) &&
      (engine === '' || e.status.engines.some((x) => x.name === engine && x.ready)) &&
      (req.session !== true || hasSessionPlace(e)),
  );
}

/** The node's last report leaves a place for one more interactive session. */
function hasSessionPlace(node: RoutableNode): boolean {
  return node.status.sessions < node.status.maxSessions;
}

/** The load figures of `engine` on the node when it reports them (its slots), else undefined. */
function engineLoad(node: RoutableNode, engine: string): NodeStatusReport['engines'][number] | undefined {
  if (engine === '') return undefined;
  const info = node.status.engines.find((x) => x.name === engine);
  return info !== undefined && info.capacity > 0 && info.secondsPerChar > 0 ? info : undefined;
}

/** Nodes that offer the request's voice, loaded or unloaded for idleness, when any do; else all of `nodes`. */
export function offeringVoice<N extends RoutableNode>(nodes: readonly N[], req: RouteRequest): readonly N[] {
  if (!req.voice.includes(':')) return nodes;
  const offering = nodes.filter((e) => e.status.loadedVoices.includes(req.voice) || e.status.unloadedVoices.includes(req.voice));
  return offering.length > 0 ? offering : nodes;
}

/**
 * Seconds the node would spend loading the request's voice before synthesizing: its engine's last
 * load time when the node unloaded the voice for idleness, else 0.
 */
export function voiceLoadSeconds(node: RoutableNode, req: RouteRequest): number {
  if (!node.status.unloadedVoices.includes(req.voice)) return 0;
  const engine = requiredEngine(req);
  return (node.status.engines.find((e) => e.name === engine)?.loadMs ?? 0) / 1000;
}

/**
 * Estimated compute seconds of `characters` on the node, at its measured speed: the speed of
 * `engine` when the node reports it, else the node's average.
 */
export function costSeconds(node: RoutableNode, characters: number, engine = ''): number {
  return characters * (engineLoad(node, engine)?.secondsPerChar ?? node.status.secondsPerChar);
}

/** Whom a start estimate is for: the tenant, its weight and the compute seconds of its request. */
export interface FairShare {
  readonly tenant: string;
  readonly weight: number;
  readonly costSeconds: number;
}

/**
 * Estimated seconds before a request for `engine` starts on the node: the work queued ahead of it
 * (the engine's when the node reports it, else the node's, plus what was routed there since the
 * report) spread over the slots that run it. With `share`, the work ahead is the request's fair
 * share of it: its tenant's own work, plus of each other tenant's work as much as weighted fair
 * queuing does for that tenant while it does the request's tenant's work and the request
 * (that work times the ratio of their weights), at most all of it.
 */
export function startSeconds(node: RoutableNode, engine = '', share?: FairShare): number {
  const load = engineLoad(node, engine);
  if (!load) return (node.status.queuedWorkSeconds + node.routedSinceReport) / Math.max(1, node.status.capacity);
  const routed = node.routedByEngine === undefined ? undefined : node.routedByEngine.get(engine) ?? { seconds: 0, byTenant: new Map<string, number>() };
  const total = load.queuedWorkSeconds + (routed?.seconds ?? node.routedSinceReport);
  if (share === undefined) return total / load.capacity;
  const byTenant = new Map<string, { seconds: number; weight: number }>();
  for (const t of load.tenants) byTenant.set(t.tenantId, { seconds: t.queuedWorkSeconds, weight: t.weight > 0 ? t.weight : 1 });
  for (const [tenant, seconds] of routed?.byTenant ?? []) {
    const t = byTenant.get(tenant);
    if (t) t.seconds += seconds;
    else byTenant.set(tenant, { seconds, weight: tenant === share.tenant ? share.weight : 1 });
  }
  let attributed = 0;
  for (const t of byTenant.values()) attributed += t.seconds;
  const own = byTenant.get(share.tenant)?.seconds ?? 0;
  const mine = own + share.costSeconds;
  // Work the node knows no tenant of counts whole.
  let ahead = own + Math.max(0, total - attributed);
  for (const [tenant, t] of byTenant) {
    if (tenant !== share.tenant) ahead += Math.min(t.seconds, (mine * t.weight) / share.weight);
  }
  return ahead / load.capacity;
}

/** The estimate of `req` on one node. */
export function estimateOn<N extends RoutableNode>(entry: N, req: RouteRequest): RouteDecision<N> {
  const engine = requiredEngine(req);
  const cost = costSeconds(entry, req.characters, engine) + voiceLoadSeconds(entry, req);
  const weight = req.tenantWeight !== undefined && req.tenantWeight > 0 ? req.tenantWeight : 1;
  const share = req.tenant === undefined ? undefined : { tenant: req.tenant, weight, costSeconds: cost };
  return { entry, startSeconds: startSeconds(entry, engine, share), costSeconds: cost };
}

/**
 * Share of the budget of work that may be ahead of a request whose own cost alone exceeds the
 * budget: no queue makes such a request fit, but on a node with little work ahead it may still
 * finish in time (the node renders its sentences in parallel), so admission does not refuse it
 * there; behind more it would only take capacity from requests that can finish.
 */
export const OVERSIZED_START_SHARE = 0.25;

/** Whether the estimate fits the request's budget (see OVERSIZED_START_SHARE for a request larger than it). */
export function fitsBudget(d: RouteDecision, budgetSeconds: number | undefined): boolean {
  if (budgetSeconds === undefined) return true;
  if (d.costSeconds >= budgetSeconds) return d.startSeconds <= OVERSIZED_START_SHARE * budgetSeconds;
  return d.startSeconds + d.costSeconds <= budgetSeconds;
}

/**
 * Seconds after which a request that does not fit its budget might: until the queue ahead has
 * drained by the overrun, or, for a request larger than the budget, to the share of work it may
 * have ahead of it.
 */
export function secondsUntilFit(d: RouteDecision, budgetSeconds: number): number {
  return d.costSeconds >= budgetSeconds
    ? d.startSeconds - OVERSIZED_START_SHARE * budgetSeconds
    : d.startSeconds + d.costSeconds - budgetSeconds;
}

/** A stateful routing policy. */
export interface RoutingPolicy {
  choose<N extends RoutableNode>(nodes: readonly N[], req: RouteRequest): RouteDecision<N> | undefined;
}

/** Builds the named policy; `random` is injectable for tests. */
export function createRoutingPolicy(name: RoutingPolicyName, random: () => number = Math.random): RoutingPolicy {
  if (name === 'round-robin') {
    let next = 0;
    return {
      choose<N extends RoutableNode>(nodes: readonly N[], req: RouteRequest): RouteDecision<N> | undefined {
        if (nodes.length === 0) return undefined;
        const sorted = [...nodes].sort((a, b) => a.status.nodeId.localeCompare(b.status.nodeId));
        return estimateOn(sorted[next++ % sorted.length]!, req);
      },
    };
  }
  return {
    choose<N extends RoutableNode>(nodes: readonly N[], req: RouteRequest): RouteDecision<N> | undefined {
      if (nodes.length === 0) return undefined;
      const pool = offeringVoice(nodes, req);
      let picks = pool;
      if (name === 'least-loaded' && pool.length > 2) {
        const i = Math.floor(random() * pool.length);
        let j = Math.floor(random() * (pool.length - 1));
        if (j >= i) j++;
        picks = [pool[i]!, pool[j]!];
      }
      let best: RouteDecision<N> | undefined;
      for (const entry of picks) {
        const d = estimateOn(entry, req);
        if (!best || d.startSeconds + d.costSeconds < best.startSeconds + best.costSeconds) best = d;
      }
      return best;
    },
  };
}
