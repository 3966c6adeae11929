/**
 * Starts and stops the scheduler: node membership (self-registration and static nodes polled for
 * status) and load-based routing, served over gRPC with grpc.health.v1.
 */
import { SchedulerService, type SchedulerServer } from '../../../gen/tts/v1/scheduler.js';
import { callUnary, synthesizerClient } from '../../common/src/grpc/clients.js';
import { startGrpcServer } from '../../common/src/grpc/server.js';
import { createLogger, type Logger } from '../../common/src/logging/logger.js';
import { loadSchedulerConfig, type SchedulerConfig } from './config.js';
import { Membership } from './domain/membership.js';
import { createRoutingPolicy } from './domain/routing.js';
import type { SchedulerContext } from './domain/scheduler-context.js';
import { heartbeat, listNodes, registerNode } from './handlers/membership.js';
import { pickNode } from './handlers/pick-node.js';

/** Options of start(): any config field overrides the environment's. */
export interface SchedulerStartOptions extends Partial<SchedulerConfig> {
  readonly logger?: Logger;
}

/** A running scheduler. */
export interface RunningScheduler {
  readonly address: string;
  readonly port: number;
  readonly context: SchedulerContext;
  stop(graceMs?: number): Promise<void>;
}

/** Starts the scheduler; resolves once it listens. */
export async function start(options: SchedulerStartOptions = {}): Promise<RunningScheduler> {
  const overrides = Object.fromEntries(Object.entries(options).filter(([k, v]) => v !== undefined && k !== 'logger'));
  const config: SchedulerConfig = { ...loadSchedulerConfig(), ...overrides };
  const logger = options.logger ?? createLogger('scheduler');
  const ctx: SchedulerContext = {
    config,
    membership: new Membership(config.nodeTimeoutMs),
    policy: createRoutingPolicy(config.routing),
    logger,
  };
  const impl: SchedulerServer = {
    registerNode: registerNode(ctx),
    heartbeat: heartbeat(ctx),
    pickNode: pickNode(ctx),
    listNodes: listNodes(ctx),
  };
  const grpc = await startGrpcServer({
    host: config.host,
    port: config.port,
    services: [{ definition: SchedulerService, implementation: impl, name: 'tts.v1.Scheduler' }],
  });
  const poller = config.staticNodes.length > 0 ? pollStaticNodes(ctx) : undefined;
  const pruner = setInterval(() => ctx.membership.prune(), 30_000);
  pruner.unref();
  logger.info('scheduler ready', { address: grpc.address, routing: config.routing, static_nodes: config.staticNodes });
  return {
    address: grpc.address,
    port: grpc.port,
    context: ctx,
    async stop(graceMs = 5000) {
      clearInterval(pruner);
      poller?.stop();
      await grpc.stop(graceMs);
      logger.info('scheduler stopped');
    },
  };
}

/** Statically configured nodes do not register: the scheduler asks them for their status. */
function pollStaticNodes(ctx: SchedulerContext): { stop(): void } {
  let stopped = false;
  const poll = async (address: string): Promise<void> => {
    const client = synthesizerClient(address);
    try {
      const status = await callUnary(client.nodeStatus.bind(client), {}, { timeoutMs: 2000 });
      const report = { ...status, address, nodeId: status.nodeId || address };
      if (!ctx.membership.heartbeat(report)) ctx.membership.register(report);
    } catch {
      // unreachable: the entry ages out of health by itself
    }
  };
  const timer = setInterval(() => {
    if (!stopped) for (const a of ctx.config.staticNodes) void poll(a);
  }, ctx.config.heartbeatMs);
  for (const a of ctx.config.staticNodes) void poll(a);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
