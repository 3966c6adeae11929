/**
 * Everything the node's handlers share: identity, engines, admission, lifecycle state and warm-up.
 */
import type { NodeState, WarmupReport } from '../../../../gen/tts/v1/synthesis.js';
import type { Logger } from '../../../common/src/logging/logger.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Admission } from './admission.js';
import type { PipelineDeps } from './pipeline.js';

/** Shared state of one running node. */
export interface NodeContext {
  readonly nodeId: string;
  /** Address peers use to reach this node (host:port); set once the server listens. */
  address: string;
  readonly registry: EngineRegistry;
  readonly admission: Admission;
  readonly deps: PipelineDeps;
  readonly logger: Logger;
  readonly startedUnixMs: number;
  state: NodeState;
  warmup: WarmupReport;
}
