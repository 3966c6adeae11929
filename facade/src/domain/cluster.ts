/**
 * The facade's view of the cluster: ready nodes and their engines and voices, fetched from the
 * scheduler and the nodes over gRPC and cached briefly.
 */
import { NodeState, type NodeStatusReport, type Voice } from '../../../gen/tts/v1/synthesis.js';
import { callUnary, schedulerClient, synthesizerClient } from '../../../services/common/src/grpc/clients.js';
import { TtsError } from '../../../services/common/src/errors/tts-error.js';

/** A snapshot of the cluster. */
export interface ClusterSnapshot {
  readonly nodes: readonly NodeStatusReport[];
  /** Ready, healthy nodes. */
  readonly ready: readonly NodeStatusReport[];
  /** Voices of ready nodes, deduplicated by id. */
  readonly voices: readonly Voice[];
  readonly fetchedAtMs: number;
}

/** Cached cluster view. */
export class ClusterView {
  private cached: ClusterSnapshot | undefined;
  private pending: Promise<ClusterSnapshot> | undefined;

  constructor(private readonly schedulerAddress: string, private readonly ttlMs = 2000) {}

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
    const scheduler = schedulerClient(this.schedulerAddress);
    let views;
    try {
      views = (await callUnary(scheduler.listNodes.bind(scheduler), {}, { timeoutMs: 2000 })).nodes;
    } catch (err) {
      throw new TtsError('TTS_NO_NODE_AVAILABLE', 'The scheduler is unreachable.', { retryAfterSec: 2, cause: err });
    }
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
        } catch {
          seen.delete(key);
        }
      }),
    );
    const snap: ClusterSnapshot = { nodes, ready, voices: [...voices.values()], fetchedAtMs: Date.now() };
    this.cached = snap;
    return snap;
  }
}
