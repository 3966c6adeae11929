/**
 * Inference node configuration, read once from the environment and frozen.
 */
import { availableParallelism, hostname } from 'node:os';
import { envBool, envInt, envList, envOptional, envString } from '../../common/src/config/env.js';

/** Configuration of one inference node. */
export interface NodeConfig {
  /** Stable id in the scheduler's view. @default "node-<hostname>-<pid>" (NODE_ID) */
  readonly nodeId: string;
  /** Interface the gRPC server binds. @default "127.0.0.1" (NODE_GRPC_HOST) */
  readonly host: string;
  /** gRPC port; 0 picks a free one. @default 50061 (NODE_GRPC_PORT) */
  readonly port: number;
  /** Address announced to the scheduler; default host:port. (NODE_ADVERTISE_ADDRESS) */
  readonly advertiseAddress: string | undefined;
  /** Scheduler to register with; none = standalone. (SCHEDULER_ADDRESS) */
  readonly schedulerAddress: string | undefined;
  /** Engines to load, in voice-resolution priority order. @default festival,flite,espeak (TTS_ENGINES) */
  readonly engines: readonly string[];
  /** Voice used when a request names none. @default "festival:slt" (TTS_DEFAULT_VOICE) */
  readonly defaultVoice: string;
  /** flite worker threads. @default cores (TTS_FLITE_WORKERS) */
  readonly fliteWorkers: number;
  /** Warm festival server processes. @default 2 (TTS_FESTIVAL_PROCESSES) */
  readonly festivalProcesses: number;
  /** Requests allowed to wait for an engine slot. @default 256 (TTS_NODE_MAX_QUEUE) */
  readonly maxQueue: number;
  /** Longest text per request. @default 100000 (TTS_NODE_MAX_CHARS) */
  readonly maxChars: number;
  /** Synthesize a short phrase per engine before reporting READY. @default true (TTS_WARMUP) */
  readonly warmup: boolean;
  /** Heartbeat period towards the scheduler in ms. @default 1000 (NODE_HEARTBEAT_MS) */
  readonly heartbeatMs: number;
}

/** Reads the node configuration from `env`; throws ConfigError naming a bad variable. */
export function loadNodeConfig(env: NodeJS.ProcessEnv = process.env): NodeConfig {
  return Object.freeze({
    nodeId: envString(env, 'NODE_ID', `node-${hostname()}-${process.pid}`),
    host: envString(env, 'NODE_GRPC_HOST', '127.0.0.1'),
    port: envInt(env, 'NODE_GRPC_PORT', 50061, { min: 0, max: 65535 }),
    advertiseAddress: envOptional(env, 'NODE_ADVERTISE_ADDRESS'),
    schedulerAddress: envOptional(env, 'SCHEDULER_ADDRESS'),
    engines: Object.freeze(envList(env, 'TTS_ENGINES', ['festival', 'flite', 'espeak'])),
    defaultVoice: envString(env, 'TTS_DEFAULT_VOICE', 'festival:slt'),
    fliteWorkers: envInt(env, 'TTS_FLITE_WORKERS', availableParallelism(), { min: 1, max: 64 }),
    festivalProcesses: envInt(env, 'TTS_FESTIVAL_PROCESSES', 2, { min: 1, max: 32 }),
    maxQueue: envInt(env, 'TTS_NODE_MAX_QUEUE', 256, { min: 1, max: 100_000 }),
    maxChars: envInt(env, 'TTS_NODE_MAX_CHARS', 100_000, { min: 1, max: 10_000_000 }),
    warmup: envBool(env, 'TTS_WARMUP', true),
    heartbeatMs: envInt(env, 'NODE_HEARTBEAT_MS', 1000, { min: 50, max: 60_000 }),
  });
}
