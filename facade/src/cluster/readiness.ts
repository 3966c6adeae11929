/**
 * Readiness of the platform as the facade sees it: some ready node can serve the default voice.
 */
import type { ClusterSnapshot, ClusterView } from './cluster.js';

/** Health facts derived from the cluster. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly readySince: Date | null;
  readonly nodesReady: number;
  readonly warmup: { done: boolean; durationMs: number; voices: string[]; error: string | null };
}

/** Tracks when readiness began. */
export class Readiness {
  private since: Date | null = null;

  constructor(private readonly cluster: ClusterView, private readonly defaultVoice: string) {}

  /** Current readiness (scheduler unreachable = not ready). */
  async report(): Promise<ReadinessReport> {
    let snap: ClusterSnapshot | undefined;
    try {
      snap = await this.cluster.snapshot();
    } catch {
      snap = undefined;
    }
    const ready = snap !== undefined && this.canServeDefault(snap);
    if (ready && this.since === null) this.since = new Date();
    if (!ready) this.since = null;
    const nodes = snap?.ready ?? [];
    const warm = nodes.map((n) => n.warmup).filter((w) => w !== undefined);
    return {
      ready,
      readySince: this.since,
      nodesReady: nodes.length,
      warmup: {
        done: warm.length > 0 && warm.every((w) => w.done),
        durationMs: warm.reduce((m, w) => Math.max(m, w.durationMs), 0),
        voices: [...new Set(warm.flatMap((w) => w.voices))],
        error: warm.find((w) => w.error !== '')?.error ?? null,
      },
    };
  }

  private canServeDefault(snap: ClusterSnapshot): boolean {
    if (snap.ready.length === 0) return false;
    const engine = this.defaultVoice.split(':')[0] ?? '';
    // Any ready engine can serve requests; the default voice needs its engine somewhere.
    return snap.ready.some((n) => n.engines.some((e) => e.ready && (engine === '' || e.name === engine))) || snap.voices.length > 0;
  }
}

/** ISO 8601 with an explicit UTC offset (+00:00), as the interface documents. */
export function isoWithOffset(d: Date): string {
  return d.toISOString().replace('Z', '+00:00');
}
