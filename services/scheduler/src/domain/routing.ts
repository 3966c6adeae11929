/**
 * Routing policies: which ready node should run a request.
 *
 * least-loaded: estimated finish time = (node's queued work + work routed since its last report)
 *   / its parallel capacity + this request's cost (characters x the node's measured seconds per
 *   character); the better of two random candidates (power of two choices), among nodes that
 *   already have the voice loaded when any do.
 * least-loaded-all: the same estimate, minimised over all candidates.
 * round-robin: in turn, for comparison.
 */
import type { NodeEntry } from './membership.js';

/** Names of the routing policies. */
export const ROUTING_POLICIES = ['least-loaded', 'least-loaded-all', 'round-robin'] as const;
/** A routing policy name. */
export type RoutingPolicyName = (typeof ROUTING_POLICIES)[number];

/** What is known of a request when routing it. */
export interface RouteRequest {
  readonly voice: string;
  readonly engine: string;
  readonly characters: number;
  readonly excludeNodeIds: readonly string[];
}

/** The chosen node and the estimate that chose it. */
export interface RouteDecision {
  readonly entry: NodeEntry;
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
export function candidates(ready: readonly NodeEntry[], req: RouteRequest): NodeEntry[] {
  const engine = requiredEngine(req);
  return ready.filter(
    (e) => !req.excludeNodeIds.includes(e.status.nodeId) && (engine === '' || e.status.engines.some((x) => x.name === engine && x.ready)),
  );
}

function startSeconds(e: NodeEntry): number {
  return (e.status.queuedWorkSeconds + e.routedSinceReport) / Math.max(1, e.status.capacity);
}

function cost(e: NodeEntry, chars: number): number {
  return chars * e.status.secondsPerChar;
}

/** A stateful routing policy. */
export interface RoutingPolicy {
  choose(nodes: readonly NodeEntry[], req: RouteRequest): RouteDecision | undefined;
}

/** Builds the named policy; `random` is injectable for tests. */
export function createRoutingPolicy(name: RoutingPolicyName, random: () => number = Math.random): RoutingPolicy {
  if (name === 'round-robin') {
    let next = 0;
    return {
      choose(nodes, req) {
        if (nodes.length === 0) return undefined;
        const sorted = [...nodes].sort((a, b) => a.status.nodeId.localeCompare(b.status.nodeId));
        const entry = sorted[next++ % sorted.length]!;
        return { entry, startSeconds: startSeconds(entry), costSeconds: cost(entry, req.characters) };
      },
    };
  }
  return {
    choose(nodes, req) {
      if (nodes.length === 0) return undefined;
      const withVoice = req.voice.includes(':') ? nodes.filter((e) => e.status.loadedVoices.includes(req.voice)) : [];
      const pool = withVoice.length > 0 ? withVoice : nodes;
      let picks: readonly NodeEntry[] = pool;
      if (name === 'least-loaded' && pool.length > 2) {
        const i = Math.floor(random() * pool.length);
        let j = Math.floor(random() * (pool.length - 1));
        if (j >= i) j++;
        picks = [pool[i]!, pool[j]!];
      }
      let best: RouteDecision | undefined;
      for (const entry of picks) {
        const s = startSeconds(entry);
        const c = cost(entry, req.characters);
        if (!best || s + c < best.startSeconds + best.costSeconds) best = { entry, startSeconds: s, costSeconds: c };
      }
      return best;
    },
  };
}
