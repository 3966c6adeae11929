/**
 * Routing in the scheduler: the synchronous routing policies (shared with the facade, from
 * services/common/src/routing, re-exported here) and the placement of asynchronous jobs on nodes.
 */
import { candidates, costSeconds, offeringVoice, voiceLoadSeconds, type RouteRequest, type RoutingPolicyName } from '@tts/common/routing';
import type { NodeEntry } from './membership.js';

export {
  ROUTING_POLICIES,
  candidates,
  createRoutingPolicy,
  requiredEngine,
  routeOrError,
  type RouteDecision,
  type RouteRequest,
  type RoutingPolicy,
  type RoutingPolicyName,
} from '@tts/common/routing';

/**
 * A node as the job dispatcher sees it: one entry per job slot (the node's capacity), each the
 * estimated seconds until that slot is free (0 = free now). The scheduler dispatches at most
 * `capacity` jobs to a node at once and keeps the rest in its queue.
 */
export interface SlotView {
  readonly entry: NodeEntry;
  /** Seconds until each slot frees up; 0 = free now. Length = the node's capacity. */
  readonly slots: number[];
  /** Estimated seconds of work on the node that is not the scheduler's jobs (synchronous requests). */
  readonly foreignSeconds: number;
}

/** A job to place, as routing sees it. */
export interface JobRouteRequest extends RouteRequest {
  readonly jobId: string;
  /** Queue priority, 0 = most urgent. */
  readonly priority: number;
}

/** For each job in order: the node to dispatch it to now, or undefined (it waits in the queue). */
export type PlacementPlan = (NodeEntry | undefined)[];

/** A job placement policy. */
export interface PlacementPolicy {
  /**
   * Plans the jobs at the head of the queue, in queue order, over `nodes` (the ready ones). Slots
   * of `nodes` are updated as jobs are placed; the caller builds fresh views for every plan.
   */
  plan(jobs: readonly JobRouteRequest[], nodes: readonly SlotView[]): PlacementPlan;
}

function nextFree(v: SlotView): number {
  let best = 0;
  for (let i = 1; i < v.slots.length; i++) if (v.slots[i]! < v.slots[best]!) best = i;
  return best;
}

/**
 * Builds the job placement counterpart of the named routing policy.
 *
 * least-loaded / least-loaded-all: earliest estimated finish time, planned over the jobs at the
 *   head of the queue in order. A job's finish on a node = the time its next slot frees (the
 *   scheduler knows what it runs where; each running job's remaining time is its estimate minus its
 *   elapsed time) + work on the node that is not the scheduler's / capacity + the job's cost
 *   (characters x the node's measured seconds per character) + the time to load the voice again on
 *   a node that unloaded it for idleness (its engine's last load time): a node holding the voice is
 *   preferred unless it would finish later by more than that. Only nodes offering the voice are
 *   considered when any do. A job goes now to a node with a free slot unless a busy node would
 *   still finish it sooner, in which case it reserves that node's next slot and waits in the
 *   queue; the jobs behind it see the reservation, so a slow idle node takes work only once the
 *   backlog makes it worthwhile. Priority comes first: while a job waits for a node, no less
 *   urgent job starts. least-loaded considers two random candidates among the nodes with a free
 *   slot (power of two choices); least-loaded-all considers them all.
 * round-robin: each job is assigned to the next node in turn, ignoring load, and waits in the
 *   queue for a slot of that node (as a node's own queue would hold it): the load-oblivious
 *   baseline of the comparison.
 */
export function createPlacementPolicy(name: RoutingPolicyName, random: () => number = Math.random): PlacementPolicy {
  if (name === 'round-robin') {
    let next = 0;
    /** Job id -> node id it was assigned to while it waits for that node. */
    let assigned = new Map<string, string>();
    return {
      plan(jobs, nodes) {
        const keep = new Map<string, string>();
        const plan = jobs.map((req) => {
          const usable = usableFor(nodes, req).sort((a, b) => a.entry.status.nodeId.localeCompare(b.entry.status.nodeId));
          if (usable.length === 0) return undefined;
          let v = usable.find((u) => u.entry.status.nodeId === assigned.get(req.jobId));
          if (!v) v = usable[next++ % usable.length]!;
          const slot = v.slots.indexOf(0);
          if (slot < 0) {
            keep.set(req.jobId, v.entry.status.nodeId);
            return undefined;
          }
          v.slots[slot] = costSeconds(v.entry, req.characters);
          return v.entry;
        });
        // Only jobs still waiting keep an assignment.
        assigned = keep;
        return plan;
      },
    };
  }
  return {
    plan(jobs, nodes) {
      // Most urgent priority among the jobs that wait: a less urgent job does not start before it.
      let waiting = Number.POSITIVE_INFINITY;
      return jobs.map((req) => {
        const usable = usableFor(nodes, req);
        if (usable.length === 0) return undefined;
        const offering = offeringVoice(usable.map((v) => v.entry), req);
        const pool = usable.filter((v) => offering.includes(v.entry));
        // A node that unloaded the voice for idleness first loads it again.
        const cost = (v: SlotView): number => costSeconds(v.entry, req.characters) + voiceLoadSeconds(v.entry, req);
        const finish = (v: SlotView): number => v.slots[nextFree(v)]! + v.foreignSeconds / Math.max(1, v.slots.length) + cost(v);
        let free = pool.filter((v) => v.slots.includes(0));
        if (name === 'least-loaded' && free.length > 2) {
          const i = Math.floor(random() * free.length);
          let j = Math.floor(random() * (free.length - 1));
          if (j >= i) j++;
          free = [free[i]!, free[j]!];
        }
        const considered = [...free, ...pool.filter((v) => !v.slots.includes(0))];
        let best = considered[0]!;
        for (const v of considered) if (finish(v) < finish(best)) best = v;
        const f = finish(best);
        const slot = nextFree(best);
        if (best.slots[slot] === 0 && req.priority <= waiting) {
          best.slots[slot] = cost(best);
          return best.entry;
        }
        best.slots[slot] = f; // reserved: the job waits for this slot
        waiting = Math.min(waiting, req.priority);
        return undefined;
      });
    },
  };
}

/** Views of the nodes able to run `req`; nodes the job already failed on only when no other can. */
function usableFor(nodes: readonly SlotView[], req: RouteRequest): SlotView[] {
  const fits = (exclude: readonly string[]): SlotView[] => {
    const ok = new Set(candidates(nodes.map((v) => v.entry), { ...req, excludeNodeIds: exclude }));
    return nodes.filter((v) => ok.has(v.entry) && v.slots.length > 0);
  };
  const usable = fits(req.excludeNodeIds);
  return usable.length > 0 || req.excludeNodeIds.length === 0 ? usable : fits([]);
}
