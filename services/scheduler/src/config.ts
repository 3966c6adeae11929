/**
 * Scheduler configuration, read once from the environment and frozen.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ConfigError, LOOPBACK_HOSTS, envBool, envEnum, envInt, envList, envOptional, envString, envLogLevel, readGrpcTlsConfig, type GrpcTlsConfig, type LogLevel } from '@tts/common';
import { ROUTING_POLICIES, type RoutingPolicyName } from './domain/routing.js';

/** How the scheduler finds inference nodes besides self-registration (always accepted). */
export const DISCOVERY_MODES = ['self', 'static', 'kubernetes'] as const;
/** A node discovery mode. */
export type DiscoveryMode = (typeof DISCOVERY_MODES)[number];

/** Configuration of the scheduler. */
export interface SchedulerConfig {
  /** Lowest level written: debug, info, warn or error. @default "info" (LOG_LEVEL) */
  readonly logLevel: LogLevel;
  /** TLS / mutual TLS of its gRPC servers and clients; undefined = plaintext (TTS_GRPC_TLS_*, see README). */
  readonly grpcTls: GrpcTlsConfig | undefined;
  /** @default "127.0.0.1" (SCHEDULER_GRPC_HOST) */
  readonly host: string;
  /** @default 50051 (SCHEDULER_GRPC_PORT) */
  readonly port: number;
  /**
   * Listen on this Unix domain socket file (made 0600, in a directory made 0700) instead of
   * host:port; clients dial "unix:<path>". The launcher sets it on one machine. (SCHEDULER_GRPC_SOCKET)
   */
  readonly socketPath: string | undefined;
  /** How nodes are chosen, for synchronous requests and jobs. @default "least-loaded" (SCHEDULER_ROUTING) */
  readonly routing: RoutingPolicyName;
  /**
   * Node discovery: "self" (nodes register themselves), "static" (SCHEDULER_STATIC_NODES polled),
   * "kubernetes" (pods of the inference-node deployment watched through the Kubernetes API, polled).
   * @default "static" when SCHEDULER_STATIC_NODES is set, else "self" (SCHEDULER_DISCOVERY)
   */
  readonly discovery: DiscoveryMode;
  /** Node addresses polled for status, in addition to self-registered nodes. (SCHEDULER_STATIC_NODES) */
  readonly staticNodes: readonly string[];
  /** Namespace of the node pods. @default the pod's own namespace, else "default" (SCHEDULER_K8S_NAMESPACE) */
  readonly k8sNamespace: string;
  /** Label selector of the node pods. @default "app.kubernetes.io/component=inference-node" (SCHEDULER_K8S_LABEL_SELECTOR) */
  readonly k8sLabelSelector: string;
  /** gRPC port of the node pods. @default 50061 (SCHEDULER_K8S_GRPC_PORT) */
  readonly k8sGrpcPort: number;
  /** Kubeconfig file; none = in-cluster service account. (SCHEDULER_KUBECONFIG, else KUBECONFIG) */
  readonly kubeconfig: string | undefined;
  /** Heartbeat period asked of nodes, ms. @default 1000 (SCHEDULER_HEARTBEAT_MS) */
  readonly heartbeatMs: number;
  /** Missed-heartbeat time after which a node is unhealthy, ms. @default 3500 (SCHEDULER_NODE_TIMEOUT_MS) */
  readonly nodeTimeoutMs: number;
  /** PostgreSQL of the jobs; none = embedded PGlite under DATA_DIR/scheduler. (SCHEDULER_DATABASE_URL, else DATABASE_URL) */
  readonly databaseUrl: string | undefined;
  /** Schema of the job tables. @default "public" (SCHEDULER_DB_SCHEMA, else TTS_DB_SCHEMA) */
  readonly dbSchema: string;
  /** Data directory: artifacts under DATA_DIR/artifacts, the embedded database under DATA_DIR/scheduler. @default "./data" (DATA_DIR) */
  readonly dataDir: string;
  /** Keep the embedded job database in memory (tests, demos). @default false (TTS_EPHEMERAL) */
  readonly ephemeral: boolean;
  /** Redis of the job queue (Streams); none = in-process queue. (REDIS_URL) */
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key (keys are "<prefix>:..."), the same as the facade's. @default "tts" (TTS_KV_PREFIX) */
  readonly kvPrefix: string;
  /** This scheduler's consumer name in the queue's group; keep it stable across restarts. @default "scheduler-<hostname>" (SCHEDULER_ID) */
  readonly schedulerId: string;
  /** Dispatches of a job before it fails (JOB_NODE_LOST after lost nodes). @default 3 (SCHEDULER_JOB_MAX_ATTEMPTS) */
  readonly jobMaxAttempts: number;
  /** Deadline of one dispatch of a job, ms. @default 600000 (SCHEDULER_JOB_TIMEOUT_MS) */
  readonly jobTimeoutMs: number;
  /** Longest job text. @default 20000 (SCHEDULER_JOB_MAX_CHARS) — the whole file returns in one gRPC message (64 MiB). */
  readonly jobMaxChars: number;
  /**
   * Bound of the job queue: a job that cannot start at once is refused (503 TTS_OVERLOADED with
   * Retry-After) while the estimated time to drain the queue ahead of it exceeds this many seconds;
   * 0 = no bound. @default 3600 (SCHEDULER_JOB_MAX_QUEUE_WAIT_SEC)
   */
  readonly jobMaxQueueWaitSec: number;
  /** How often the dispatcher looks for work queued by other schedulers, ms. @default 250 (SCHEDULER_QUEUE_POLL_MS) */
  readonly queuePollMs: number;
  /** Idle time after which a queue entry held by a silent scheduler is taken over, ms. @default 30000 (SCHEDULER_QUEUE_LEASE_MS) */
  readonly queueLeaseMs: number;
  /**
   * The platform components' token (the facade sends it as "authorization: Bearer <token>"; it may
   * state a job's owner and tier). Required unless the scheduler listens on loopback or a Unix
   * socket only, where callers without a credential count as platform components (tests, a
   * hand-started dev setup; `npm start` always sets one). (TTS_INTERNAL_TOKEN)
   */
  readonly internalToken: string | undefined;
  /** The token nodes must present to register and heart-beat; same rule as TTS_INTERNAL_TOKEN. (TTS_NODE_JOIN_TOKEN) */
  readonly nodeJoinToken: string | undefined;
}

/**
 * Checks the caller credentials of a complete configuration (start() runs it after overrides):
 * required beyond loopback, where a scheduler reachable from other machines must trust no
 * unauthenticated caller; at least 16 characters.
 */
export function checkCallerCredentials(config: SchedulerConfig): SchedulerConfig {
  const local = config.socketPath !== undefined || LOOPBACK_HOSTS.has(config.host);
  if (!local && config.internalToken === undefined) throw new ConfigError('TTS_INTERNAL_TOKEN', `is required when the scheduler listens on ${config.host} (beyond loopback)`);
  if (!local && config.nodeJoinToken === undefined) throw new ConfigError('TTS_NODE_JOIN_TOKEN', `is required when the scheduler listens on ${config.host} (beyond loopback)`);
  for (const [name, value] of [['TTS_INTERNAL_TOKEN', config.internalToken], ['TTS_NODE_JOIN_TOKEN', config.nodeJoinToken]] as const) {
    if (value !== undefined && value.length < 16) throw new ConfigError(name, 'must be at least 16 characters');
  }
  return config;
}

function defaultNamespace(): string {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

/** Reads the scheduler configuration; throws ConfigError naming a bad variable. */
export function loadSchedulerConfig(env: NodeJS.ProcessEnv = process.env): SchedulerConfig {
  const staticNodes = Object.freeze(envList(env, 'SCHEDULER_STATIC_NODES', []));
  const discovery = envEnum(env, 'SCHEDULER_DISCOVERY', DISCOVERY_MODES, staticNodes.length > 0 ? 'static' : 'self');
  if (discovery === 'static' && staticNodes.length === 0) throw new ConfigError('SCHEDULER_STATIC_NODES', 'must list node addresses when SCHEDULER_DISCOVERY=static');
  return Object.freeze({
    logLevel: envLogLevel(env),
    grpcTls: readGrpcTlsConfig(env),
    host: envString(env, 'SCHEDULER_GRPC_HOST', '127.0.0.1'),
    port: envInt(env, 'SCHEDULER_GRPC_PORT', 50051, { min: 0, max: 65535 }),
    socketPath: envOptional(env, 'SCHEDULER_GRPC_SOCKET'),
    routing: envEnum(env, 'SCHEDULER_ROUTING', ROUTING_POLICIES, 'least-loaded'),
    discovery,
    staticNodes,
    k8sNamespace: envOptional(env, 'SCHEDULER_K8S_NAMESPACE') ?? (discovery === 'kubernetes' ? defaultNamespace() : 'default'),
    k8sLabelSelector: envString(env, 'SCHEDULER_K8S_LABEL_SELECTOR', 'app.kubernetes.io/component=inference-node'),
    k8sGrpcPort: envInt(env, 'SCHEDULER_K8S_GRPC_PORT', 50061, { min: 1, max: 65535 }),
    kubeconfig: envOptional(env, 'SCHEDULER_KUBECONFIG') ?? envOptional(env, 'KUBECONFIG'),
    heartbeatMs: envInt(env, 'SCHEDULER_HEARTBEAT_MS', 1000, { min: 50, max: 60_000 }),
    nodeTimeoutMs: envInt(env, 'SCHEDULER_NODE_TIMEOUT_MS', 3500, { min: 100, max: 600_000 }),
    databaseUrl: envOptional(env, 'SCHEDULER_DATABASE_URL') ?? envOptional(env, 'DATABASE_URL'),
    dbSchema: envOptional(env, 'SCHEDULER_DB_SCHEMA') ?? envString(env, 'TTS_DB_SCHEMA', 'public'),
    dataDir: envString(env, 'DATA_DIR', './data'),
    ephemeral: envBool(env, 'TTS_EPHEMERAL', false),
    redisUrl: envOptional(env, 'REDIS_URL'),
    kvPrefix: envString(env, 'TTS_KV_PREFIX', 'tts'),
    schedulerId: envString(env, 'SCHEDULER_ID', `scheduler-${hostname()}`),
    jobMaxAttempts: envInt(env, 'SCHEDULER_JOB_MAX_ATTEMPTS', 3, { min: 1, max: 20 }),
    jobTimeoutMs: envInt(env, 'SCHEDULER_JOB_TIMEOUT_MS', 600_000, { min: 1000, max: 86_400_000 }),
    jobMaxChars: envInt(env, 'SCHEDULER_JOB_MAX_CHARS', 20_000, { min: 1, max: 200_000 }),
    jobMaxQueueWaitSec: envInt(env, 'SCHEDULER_JOB_MAX_QUEUE_WAIT_SEC', 3600, { min: 0, max: 30 * 86_400 }),
    queuePollMs: envInt(env, 'SCHEDULER_QUEUE_POLL_MS', 250, { min: 10, max: 60_000 }),
    queueLeaseMs: envInt(env, 'SCHEDULER_QUEUE_LEASE_MS', 30_000, { min: 500, max: 3_600_000 }),
    internalToken: envOptional(env, 'TTS_INTERNAL_TOKEN'),
    nodeJoinToken: envOptional(env, 'TTS_NODE_JOIN_TOKEN'),
  });
}
