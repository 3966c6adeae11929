/**
 * Starts and stops the scheduler: node membership (self-registration, plus a static list or
 * Kubernetes pods polled for status), load-based routing of synchronous requests, and asynchronous
 * jobs (queue, dispatch to nodes, artifacts, events), served over gRPC with grpc.health.v1.
 */
import { SchedulerService, type SchedulerServer } from '@tts/proto/scheduler';
import type { Database } from '@tts/common/data';
import { checkPlaintextListen, configureGrpcTls, startGrpcServer, createLogger, type Logger, setLogLevel } from '@tts/common';
import type { Kv } from '@tts/common/kv';
import { checkCallerCredentials, loadSchedulerConfig, type SchedulerConfig } from './config.js';
import type { KubernetesDiscovery } from './domain/discovery/kubernetes.js';
import { NodePoller } from './domain/discovery/node-poller.js';
import { JobService } from './domain/jobs/job-service.js';
import { observeJobs } from '@tts/common/telemetry';
import { Membership } from './domain/membership.js';
import { createPlacementPolicy, createRoutingPolicy } from './domain/routing.js';
import type { SchedulerContext } from './domain/scheduler-context.js';
import { cancelJob, getJob, getQueueStats, listJobEvents, listJobs, submitJob } from './handlers/jobs.js';
import { heartbeat, listNodes, registerNode } from './handlers/membership.js';
import { pickNode } from './handlers/pick-node.js';
import { readJobAudio } from './handlers/read-job-audio.js';
import { synthesizeInteractive } from './handlers/synthesize-interactive.js';
import { watchJob } from './handlers/watch-job.js';

/** Options of start(): any config field overrides the environment's. */
export interface SchedulerStartOptions extends Partial<SchedulerConfig> {
  readonly logger?: Logger;
  /**
   * Job database to use instead of opening one from the configuration (tests: a PostgreSQL schema).
   * The caller closes it after stop().
   */
  readonly database?: Database;
  /** Key-value store of the job queue to use instead of opening one (tests: a Redis key prefix). */
  readonly kv?: Kv;
}

/** A running scheduler. */
export interface RunningScheduler {
  readonly address: string;
  readonly port: number;
  readonly context: SchedulerContext;
  /** Stops serving; running job syntheses get `graceMs` to finish (the rest resume at the next start). */
  stop(graceMs?: number): Promise<void>;
}

/** Starts the scheduler; resolves once it listens (and, with existing job storage, once jobs resumed). */
export async function start(options: SchedulerStartOptions = {}): Promise<RunningScheduler> {
  const overrides = Object.fromEntries(
    Object.entries(options).filter(([k, v]) => v !== undefined && k !== 'logger' && k !== 'database' && k !== 'kv'),
  );
  const config: SchedulerConfig = checkCallerCredentials({ ...loadSchedulerConfig(), ...overrides });
  checkPlaintextListen(config, config.grpcTls);
  setLogLevel(config.logLevel);
  const logger = options.logger ?? createLogger('scheduler');
  // Before the first gRPC server or client: every hop then uses the same TLS material (or none).
  await configureGrpcTls(config.grpcTls, (message) => logger.warn(message));
  const membership = new Membership(config.nodeTimeoutMs);
  const jobs = await JobService.create({
    config,
    membership,
    policy: createPlacementPolicy(config.routing),
    logger,
    ...(options.database ? { database: options.database } : {}),
    ...(options.kv ? { kv: options.kv } : {}),
  });
  const ctx: SchedulerContext = { config, membership, policy: createRoutingPolicy(config.routing), jobs, callers: jobs.callers, logger };
  const impl: SchedulerServer = {
    registerNode: registerNode(ctx),
    heartbeat: heartbeat(ctx),
    pickNode: pickNode(ctx),
    listNodes: listNodes(ctx),
    submitJob: submitJob(ctx),
    getJob: getJob(ctx),
    listJobs: listJobs(ctx),
    listJobEvents: listJobEvents(ctx),
    watchJob: watchJob(ctx),
    cancelJob: cancelJob(ctx),
    readJobAudio: readJobAudio(ctx),
    getQueueStats: getQueueStats(ctx),
    synthesizeInteractive: synthesizeInteractive(ctx),
  };
  let grpc;
  try {
    grpc = await startGrpcServer({
      host: config.host,
      port: config.port,
      socketPath: config.socketPath,
      services: [{ definition: SchedulerService, implementation: impl, name: 'tts.v1.Scheduler' }],
    });
  } catch (err) {
    await jobs.close(0);
    throw err;
  }
  const poller = new NodePoller({ membership, intervalMs: config.heartbeatMs, onStatus: () => jobs.kick() });
  for (const address of config.staticNodes) poller.set(address, address);
  let kubernetes: KubernetesDiscovery | undefined;
  if (config.discovery === 'kubernetes') {
    try {
      // Loaded only in this mode: the Kubernetes client takes seconds to import.
      const { startKubernetesDiscovery } = await import('./domain/discovery/kubernetes.js');
      kubernetes = await startKubernetesDiscovery({
        namespace: config.k8sNamespace,
        labelSelector: config.k8sLabelSelector,
        grpcPort: config.k8sGrpcPort,
        kubeconfig: config.kubeconfig,
        poller,
        logger,
      });
    } catch (err) {
      poller.stop();
      await grpc.stop(0);
      await jobs.close(0);
      throw err;
    }
  }
  const pruner = setInterval(() => membership.prune(), 30_000);
  pruner.unref();
  // tts.jobs{state}: read at each metrics collection.
  const stopJobGauge = observeJobs(async () => {
    const stats = await jobs.stats();
    return { queued: stats.queued, running: stats.running };
  });
  logger.info('scheduler ready', { address: grpc.address, routing: config.routing, discovery: config.discovery, static_nodes: config.staticNodes });
  const running = grpc;
  return {
    address: running.address,
    port: running.port,
    context: ctx,
    async stop(graceMs = 5000) {
      clearInterval(pruner);
      stopJobGauge();
      await kubernetes?.stop();
      poller.stop();
      await jobs.close(graceMs);
      await running.stop(graceMs);
      logger.info('scheduler stopped');
    },
  };
}
