/**
 * Scheduler configuration, read once from the environment and frozen.
 */
import { envEnum, envInt, envList, envString } from '../../common/src/config/env.js';
import { ROUTING_POLICIES, type RoutingPolicyName } from './domain/routing.js';

/** Configuration of the scheduler. */
export interface SchedulerConfig {
  /** @default "127.0.0.1" (SCHEDULER_GRPC_HOST) */
  readonly host: string;
  /** @default 50051 (SCHEDULER_GRPC_PORT) */
  readonly port: number;
  /** How nodes are chosen. @default "least-loaded" (SCHEDULER_ROUTING) */
  readonly routing: RoutingPolicyName;
  /** Node addresses polled for status, in addition to self-registered nodes. (SCHEDULER_STATIC_NODES) */
  readonly staticNodes: readonly string[];
  /** Heartbeat period asked of nodes, ms. @default 1000 (SCHEDULER_HEARTBEAT_MS) */
  readonly heartbeatMs: number;
  /** Missed-heartbeat time after which a node is unhealthy, ms. @default 3500 (SCHEDULER_NODE_TIMEOUT_MS) */
  readonly nodeTimeoutMs: number;
}

/** Reads the scheduler configuration; throws ConfigError naming a bad variable. */
export function loadSchedulerConfig(env: NodeJS.ProcessEnv = process.env): SchedulerConfig {
  return Object.freeze({
    host: envString(env, 'SCHEDULER_GRPC_HOST', '127.0.0.1'),
    port: envInt(env, 'SCHEDULER_GRPC_PORT', 50051, { min: 0, max: 65535 }),
    routing: envEnum(env, 'SCHEDULER_ROUTING', ROUTING_POLICIES, 'least-loaded'),
    staticNodes: Object.freeze(envList(env, 'SCHEDULER_STATIC_NODES', [])),
    heartbeatMs: envInt(env, 'SCHEDULER_HEARTBEAT_MS', 1000, { min: 50, max: 60_000 }),
    nodeTimeoutMs: envInt(env, 'SCHEDULER_NODE_TIMEOUT_MS', 3500, { min: 100, max: 600_000 }),
  });
}
