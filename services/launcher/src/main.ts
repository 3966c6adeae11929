/**
 * One-command start on one machine: the scheduler, TTS_NODES inference nodes and the facade as
 * separate processes talking real gRPC over loopback. Ctrl-C / SIGTERM stops them in order.
 */
import { createLogger, setLogLevel } from '@tts/common';
import { loadLauncherConfig } from './config.js';
import { Supervised } from './supervisor.js';

const logger = createLogger('launcher');
const config = loadLauncherConfig();
setLogLevel(config.logLevel);
const schedulerAddress = `${config.internalHost}:${config.schedulerPort}`;
const base = { ...process.env };
/** METRICS_PORT of the n-th child (0 facade, 1 scheduler, 1 + i node i): one Prometheus port each, or 0 (off) for all. */
const metricsPort = (n: number): string => String(config.metricsPort === 0 ? 0 : config.metricsPort + n);

const scheduler = new Supervised(
  { name: 'scheduler', entry: '@tts/scheduler/main', env: { ...base, SCHEDULER_GRPC_HOST: config.internalHost, SCHEDULER_GRPC_PORT: String(config.schedulerPort), METRICS_PORT: metricsPort(1) }, readyLine: '"scheduler ready"' },
  logger,
);
const nodes = Array.from({ length: config.nodes }, (_, i) =>
  new Supervised(
    {
      name: `node-${i + 1}`,
      entry: '@tts/inference-node/main',
      env: { ...base, NODE_ID: base['NODE_ID'] ?? `node-${i + 1}`, NODE_GRPC_HOST: config.internalHost, NODE_GRPC_PORT: '0', SCHEDULER_ADDRESS: schedulerAddress, METRICS_PORT: metricsPort(2 + i) },
      readyLine: '"registered with scheduler"',
    },
    logger,
  ),
);
const facade = new Supervised(
  { name: 'facade', entry: '@tts/facade/main', env: { ...base, PORT: String(config.port), SCHEDULER_ADDRESS: schedulerAddress, METRICS_PORT: metricsPort(0) }, readyLine: '"facade listening"' },
  logger,
);

let shuttingDown = false;
async function shutdown(signal: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info('stopping platform', { signal });
  await facade.stop(config.shutdownGraceMs);
  await Promise.all(nodes.map((n) => n.stop(config.shutdownGraceMs)));
  await scheduler.stop(config.shutdownGraceMs);
  logger.info('platform stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

scheduler.start();
await scheduler.ready;
for (const n of nodes) n.start();
facade.start();
await Promise.all([facade.ready, ...nodes.map((n) => n.ready)]);
logger.info('platform ready', { url: `http://127.0.0.1:${config.port}`, nodes: config.nodes, health: `http://127.0.0.1:${config.port}/api/health` });
