/**
 * Nodes the scheduler finds itself (a static list, or pods watched through the Kubernetes API) do
 * not register: the poller asks each target for its NodeStatus every heartbeat period and feeds
 * the answer to the membership as a heartbeat. An unreachable target ages out of health by itself.
 */
import { callUnary, synthesizerClient } from '@tts/common';
import type { Membership } from '../membership.js';

/** Options of the poller. */
export interface NodePollerOptions {
  readonly membership: Membership;
  /** Poll period, ms. */
  readonly intervalMs: number;
  /** Called after a target's status was recorded (e.g. to look for dispatchable work). */
  readonly onStatus?: () => void;
}

/** Polls a changing set of node addresses. */
export class NodePoller {
  /** key (pod name or address) -> address */
  private readonly targets = new Map<string, string>();
  /** key -> node id last reported by the target */
  private readonly nodeIds = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: NodePollerOptions) {
    this.timer = setInterval(() => {
      for (const key of this.targets.keys()) void this.poll(key);
    }, o.intervalMs);
    this.timer.unref();
  }

  /** Adds or moves a target and polls it at once. */
  set(key: string, address: string): void {
    if (this.targets.get(key) === address) return;
    this.targets.set(key, address);
    void this.poll(key);
  }

  /** Stops polling a target and forgets its node (it is gone: no new work goes there). */
  delete(key: string): void {
    this.targets.delete(key);
    const nodeId = this.nodeIds.get(key);
    this.nodeIds.delete(key);
    if (nodeId !== undefined) this.o.membership.remove(nodeId);
  }

  /** Keys of the current targets. */
  keys(): string[] {
    return [...this.targets.keys()];
  }

  /** Stops polling. */
  stop(): void {
    clearInterval(this.timer);
    this.targets.clear();
  }

  private async poll(key: string): Promise<void> {
    const address = this.targets.get(key);
    if (address === undefined) return;
    const client = synthesizerClient(address);
    try {
      const status = await callUnary(client.nodeStatus.bind(client), {}, { timeoutMs: 2000 });
      if (this.targets.get(key) !== address) return; // removed or moved meanwhile
      const report = { ...status, address, nodeId: status.nodeId || address };
      this.nodeIds.set(key, report.nodeId);
      if (!this.o.membership.heartbeat(report)) this.o.membership.register(report);
      this.o.onStatus?.();
    } catch {
      // unreachable: the entry ages out of health by itself
    }
  }
}
