/** Test fixtures of routing: a node's status report with the fields routing reads. */
import { NodeState, type NodeStatusReport, type TenantLoad } from '@tts/proto/synthesis';

/** Options of `nodeStatusFixture`. */
export interface NodeStatusFixture {
  readonly secondsPerChar?: number;
  readonly capacity?: number;
  readonly queued?: number;
  readonly engines?: readonly string[];
  readonly voices?: readonly string[];
  readonly engineReady?: boolean;
  /** Per-engine load figures (slots, queued work, seconds per character); none = the engines report none (0). */
  readonly engineLoad?: { readonly capacity: number; readonly queuedWorkSeconds: number; readonly secondsPerChar: number; readonly tenants?: readonly TenantLoad[] };
  /** Voices the node offers but unloaded for idleness. @default none */
  readonly unloadedVoices?: readonly string[];
  /** Last load time of each engine, ms. @default 1000 */
  readonly loadMs?: number;
  /** Interactive sessions open. @default 0 */
  readonly sessions?: number;
  /** Interactive sessions admitted. @default 128 */
  readonly maxSessions?: number;
}

/** A READY node's report: engines (default flite) with one voice "<engine>:v" each. */
export function nodeStatusFixture(nodeId: string, o: NodeStatusFixture = {}): NodeStatusReport {
  const engines = o.engines ?? ['flite'];
  return {
    nodeId,
    address: `${nodeId}:1`,
    state: NodeState.NODE_STATE_READY,
    queueDepth: 0,
    inFlight: 0,
    realTimeFactor: 0.1,
    secondsPerChar: o.secondsPerChar ?? 0.001,
    loadedVoices: [...(o.voices ?? engines.map((e) => `${e}:v`))],
    unloadedVoices: [...(o.unloadedVoices ?? [])],
    engines: engines.map((name) => ({ name, description: '', ready: o.engineReady ?? true, voiceCount: 1, nativeSpeed: false, streaming: true, device: 'cpu', maxBatchSize: 1, error: '', features: [],
      capacity: o.engineLoad?.capacity ?? 0, queuedWorkSeconds: o.engineLoad?.queuedWorkSeconds ?? 0, secondsPerChar: o.engineLoad?.secondsPerChar ?? 0,
      loaded: !(o.unloadedVoices ?? []).some((v) => v.startsWith(`${name}:`)), loadMs: o.loadMs ?? 1000, idleUnloadSec: 0, tenants: [...(o.engineLoad?.tenants ?? [])],
    })),
    capacity: o.capacity ?? 1,
    queuedWorkSeconds: o.queued ?? 0,
    version: 'test',
    startedUnixMs: 0,
    analysis: [],
    warmup: undefined,
    sessions: o.sessions ?? 0,
    maxSessions: o.maxSessions ?? 128,
  };
}
