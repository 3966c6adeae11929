/**
 * Routing policies: which ready node should run a synchronous request. Pure code over the nodes'
 * last status reports, shared by the scheduler (PickNode) and the facade (lookaside routing).
 *
 * least-loaded: estimated finish time = (node's queued work + work routed since its last report)
 *   / its parallel capacity + this request's cost (characters x the node's measured seconds per
 *   character); the better of two random candidates (power of two choices), among nodes that
 *   already have the voice loaded when any do.
 * least-loaded-all: the same estimate, minimised over all candidates.
 * round-robin: in turn, for comparison.
 */
import type { NodeStatusReport } from '@tts/proto/synthesis';

/** Names of the routing policies. */
export const ROUTING_POLICIES = ['least-loaded', 'least-loaded-all', 'round-robin'] as const;
/** A routing policy name. */
export type RoutingPolicyName = (typeof ROUTING_POLICIES)[number];

/** A node as routing sees it: its last status report and the work routed to it since. */
export interface RoutableNode {
  readonly status: NodeStatusReport;
  /** Work routed here since the node's last report, in estimated compute seconds. */
  routedSinceReport: number;
}

/** What is known of a request when routing it. */
export interface RouteRequest {
  readonly voice: string;
  readonly engine: string;
  readonly characters: number;
  readonly excludeNodeIds: readonly string[];
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

/** Nodes able to serve the request. */
export function candidates<N extends RoutableNode>(ready: readonly N[], req: RouteRequest): N[] {
  const engine = requiredEngine(req);
  return ready.filter(
    (e) => !req.excludeNodeIds.includes(e.status.nodeId) && (engine === '' || e.status.engines.some((x) => x.name === engine && x.ready)),
  );
}

/** Estimated compute seconds of `characters` on the node, at its measured speed. */
export function costSeconds(node: RoutableNode, characters: number): number {
  return characters * node.status.secondsPerChar;
}

function startSeconds(e: RoutableNode): number {
  return (e.status.queuedWorkSeconds + e.routedSinceReport) / Math.max(1, e.status.capacity);
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
        const entry = sorted[next++ % sorted.length]!;
        return { entry, startSeconds: startSeconds(entry), costSeconds: costSeconds(entry, req.characters) };
      },
    };
  }
  return {
    choose<N extends RoutableNode>(nodes: readonly N[], req: RouteRequest): RouteDecision<N> | undefined {
      if (nodes.length === 0) return undefined;
      const withVoice = req.voice.includes(':') ? nodes.filter((e) => e.status.loadedVoices.includes(req.voice)) : [];
      const pool = withVoice.length > 0 ? withVoice : nodes;
      let picks = pool;
      if (name === 'least-loaded' && pool.length > 2) {
        const i = Math.floor(random() * pool.length);
        let j = Math.floor(random() * (pool.length - 1));
        if (j >= i) j++;
        picks = [pool[i]!, pool[j]!];
      }
      let best: RouteDecision<N> | undefined;
      for (const entry of picks) {
        const s = startSeconds(entry);
        const c = costSeconds(entry, req.characters);
        if (!best || s + c < best.startSeconds + best.costSeconds) best = { entry, startSeconds: s, costSeconds: c };
      }
      return best;
    },
  };
}
