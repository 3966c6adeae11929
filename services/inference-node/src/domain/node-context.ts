/**
 * Everything the node's handlers share: identity, engines, admission, lifecycle state and warm-up.
 */
import type { NodeState, WarmupReport } from '@tts/proto/synthesis';
import type { Logger } from '@tts/common';
import type { EngineRegistry } from '../engines/registry.js';
import type { Admission } from './admission.js';
import type { PipelineDeps } from './pipeline.js';
import type { AnalysisContext } from '../analysis/context.js';
import type { Cloner } from '../cloning/clone.js';
import type { SessionLimits } from './interactive-session.js';

/** Shared state of one running node. */
export interface NodeContext {
  readonly nodeId: string;
  /** Address peers use to reach this node (host:port); set once the server listens. */
  address: string;
  readonly registry: EngineRegistry;
  readonly admission: Admission;
  readonly deps: PipelineDeps;
  /** Bounds of each interactive session (SynthesizeInteractive). */
  readonly sessionLimits: SessionLimits;
  /** Upload limits and models of the AudioAnalyzer service. */
  readonly analysis: AnalysisContext;
  /** Voice cloning (nearest voice, adapted). */
  readonly cloner: Cloner;
  readonly logger: Logger;
  readonly startedUnixMs: number;
  state: NodeState;
  warmup: WarmupReport;
}
