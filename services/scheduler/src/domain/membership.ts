/**
 * The scheduler's table of inference nodes: who is there, their last reported load, and whether
 * they are healthy (heart-beating within the time-out).
 */
import type { NodeStatusReport } from '@tts/proto/synthesis';
import { NodeState } from '@tts/proto/synthesis';
import type { RoutedWork } from '@tts/common/routing';

/** One node as the scheduler sees it. */
export interface NodeEntry {
  status: NodeStatusReport;
  lastHeartbeatMs: number;
  /** Work the scheduler routed here since the node's last report, in estimated compute seconds. */
  routedSinceReport: number;
  /** The same work by engine and tenant. */
  routedByEngine: Map<string, RoutedWork>;
  /** A call to the node failed at the transport since its last report: no new work until it reports. */
  suspect?: boolean;
}

/** Node membership. */
export class Membership {
  private readonly nodes = new Map<string, NodeEntry>();

  constructor(private readonly timeoutMs: number, private readonly now: () => number = Date.now) {}

  /** Adds or replaces a node; returns its id. */
  register(status: NodeStatusReport): string {
    const id = status.nodeId !== '' ? status.nodeId : status.address;
    this.nodes.set(id, { status: { ...status, nodeId: id }, lastHeartbeatMs: this.now(), routedSinceReport: 0, routedByEngine: new Map() });
    return id;
  }

  /** Updates a known node; false when the node is unknown (it must register again). */
  heartbeat(status: NodeStatusReport): boolean {
    const entry = this.nodes.get(status.nodeId);
    if (!entry) return false;
    entry.status = status;
    entry.lastHeartbeatMs = this.now();
    entry.routedSinceReport = 0;
    entry.routedByEngine = new Map();
    entry.suspect = false;
    return true;
  }

  /**
   * Gives a node no new work until its next report: a call to it failed at the transport (its
   * process is likely gone), and waiting for its heartbeat time-out would send it more jobs.
   */
  suspect(nodeId: string): void {
    const entry = this.nodes.get(nodeId);
    if (entry) entry.suspect = true;
  }

  /** True when the node reported within the time-out. */
  healthy(entry: NodeEntry): boolean {
    return this.now() - entry.lastHeartbeatMs <= this.timeoutMs;
  }

  /** Nodes that are healthy, READY and not suspect. */
  ready(): NodeEntry[] {
    return [...this.nodes.values()].filter((e) => this.healthy(e) && !e.suspect && e.status.state === NodeState.NODE_STATE_READY);
  }

  /** The node with this id, or undefined. */
  get(nodeId: string): NodeEntry | undefined {
    return this.nodes.get(nodeId);
  }

  /** Forgets a node at once (its pod is gone); true when it was known. */
  remove(nodeId: string): boolean {
    return this.nodes.delete(nodeId);
  }

  /** Every node, healthy or not. */
  all(): NodeEntry[] {
    return [...this.nodes.values()];
  }

  /** Forgets nodes silent for longer than `factor` time-outs. */
  prune(factor = 10): void {
    for (const [id, e] of this.nodes) if (this.now() - e.lastHeartbeatMs > this.timeoutMs * factor) this.nodes.delete(id);
  }
}
