/**
 * The facade's view of the cluster: ready nodes and their engines and voices, from the scheduler's
 * node list (shared with the routing view) and the nodes over gRPC, cached briefly.
 */
import type { NodeView } from '@tts/proto/scheduler';
import { NodeState, type NodeStatusReport, type Voice } from '@tts/proto/synthesis';
import { callUnary, synthesizerClient, type Logger } from '@tts/common';

/** Where the scheduler's node list comes from: the NodeRouter, whose background ListNodes it shares. */
export interface NodeListSource {
  /** The node list, at most `maxAgeMs` old; throws TTS_NO_NODE_AVAILABLE when the scheduler is unreachable. */
  listNodes(maxAgeMs: number): Promise<readonly NodeView[]>;
}

/** Oldest node list a snapshot is built from, ms: the scheduler's reachability shows within it. */
const NODE_LIST_MAX_AGE_MS = 1000;

/** A snapshot of the cluster. */
export interface ClusterSnapshot {
  readonly nodes: readonly NodeStatusReport[];
  /** Ready, healthy nodes. */
  readonly ready: readonly NodeStatusReport[];
  /** Voices of ready nodes, deduplicated by id. */
  readonly voices: readonly Voice[];
  /**
   * Engines that can serve now: ready on at least one ready node, sorted. What /v1/models,
   * /api/capabilities and model resolution all call "available".
   */
  readonly engines: readonly string[];
  /** Engines some node runs, ready or not (a request for one that is not ready is a 503, not a 404). */
  readonly knownEngines: readonly string[];
  readonly fetchedAtMs: number;
}

/** Cached cluster view. */
export class ClusterView {
  private cached: ClusterSnapshot | undefined;
  private pending: Promise<ClusterSnapshot> | undefined;

  constructor(
    private readonly source: NodeListSource,
    private readonly ttlMs = 2000,
    private readonly logger?: Logger,
  ) {}

  /** The current snapshot (cached for ttlMs). Throws TTS_NO_NODE_AVAILABLE when the scheduler is unreachable. */
  async snapshot(): Promise<ClusterSnapshot> {
    if (this.cached && Date.now() - this.cached.fetchedAtMs < this.ttlMs) return this.cached;
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Drops the cache (after a failure that suggests the view is stale). */
  invalidate(): void {
    this.cached = undefined;
  }

  private async fetch(): Promise<ClusterSnapshot> {
    const views = await this.source.listNodes(NODE_LIST_MAX_AGE_MS);
    const nodes = views.flatMap((v) => (v.status ? [v.status] : []));
    const ready = views.filter((v) => v.healthy && v.status?.state === NodeState.NODE_STATE_READY).flatMap((v) => (v.status ? [v.status] : []));
    const voices = new Map<string, Voice>();
    // Nodes of one deployment share engines; ask each distinct engine set once.
    const seen = new Set<string>();
    await Promise.all(
      ready.map(async (n) => {
        const key = n.engines.filter((e) => e.ready).map((e) => e.name).sort().join(',');
        if (seen.has(key)) return;
        seen.add(key);
        const client = synthesizerClient(n.address);
        try {
          const res = await callUnary(client.listVoices.bind(client), { engine: '', language: '' }, { timeoutMs: 2000 });
          for (const v of res.voices) if (!voices.has(v.id)) voices.set(v.id, v);
        } catch (err) {
          // This node's voices are missing from the snapshot; another node of the set may answer.
          this.logger?.warn('voices of a node could not be listed', { node_id: n.nodeId, address: n.address, error: err instanceof Error ? err.message : String(err) });
          seen.delete(key);
        }
      }),
    );
    const engines = [...new Set(ready.flatMap((n) => n.engines.filter((e) => e.ready).map((e) => e.name)))].sort();
    const knownEngines = [...new Set(nodes.flatMap((n) => n.engines.map((e) => e.name)))].sort();
    const snap: ClusterSnapshot = { nodes, ready, voices: [...voices.values()], engines, knownEngines, fetchedAtMs: Date.now() };
    this.cached = snap;
    return snap;
  }
}
