/**
 * One-command start on one machine: the scheduler, TTS_NODES inference nodes and the facade as
 * separate processes talking real gRPC (embedded, the scheduler and the facade share one control
 * process and its one embedded database), over Unix domain sockets by default (TCP on loopback with
 * TTS_INTERNAL_TRANSPORT=tcp). Ctrl-C / SIGTERM stops them in order. Everything the platform writes
 * is private to its user (umask 077, inherited by the children).
 */
import { randomBytes } from 'node:crypto';
import { rmdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createLogger, ensurePrivateDir, envOptional, setLogLevel, unixAddress, usePrivateUmask } from '@tts/common/launch';
import { ensureAnalysisModels } from './analysis-models.js';
import { loadLauncherConfig } from './config.js';
import { Supervised } from './supervisor.js';

// Before anything is written: the children inherit it, so every file of the platform is private.
usePrivateUmask();
const logger = createLogger('launcher');
const config = loadLauncherConfig();
setLogLevel(config.logLevel);
const unix = config.internalTransport === 'unix';
const schedulerSocket = path.join(config.socketDir, 'scheduler.sock');
const nodeSocket = (i: number): string => path.join(config.socketDir, `node-${i + 1}.sock`);
if (unix) ensurePrivateDir(config.socketDir);
const schedulerAddress = unix ? unixAddress(schedulerSocket) : `${config.internalHost}:${config.schedulerPort}`;
const base = { ...process.env };
// The scheduler takes owner and tier only from an authenticated caller and admits only nodes with
// the join credential, on one machine too: tokens for this run unless the user set them.
base['TTS_INTERNAL_TOKEN'] ||= randomBytes(32).toString('base64url');
base['TTS_NODE_JOIN_TOKEN'] ||= randomBytes(32).toString('base64url');
// The children's listening settings come from the launcher alone.
delete base['SCHEDULER_GRPC_SOCKET'];
delete base['NODE_GRPC_SOCKET'];
/** Where the scheduler listens: its socket file, or TTS_INTERNAL_HOST:SCHEDULER_GRPC_PORT. */
const schedulerListen: NodeJS.ProcessEnv = unix ? { SCHEDULER_GRPC_SOCKET: schedulerSocket } : { SCHEDULER_GRPC_HOST: config.internalHost, SCHEDULER_GRPC_PORT: String(config.schedulerPort) };
/** Where node i listens (and what it announces): its socket file, or a free port on TTS_INTERNAL_HOST. */
const nodeListen = (i: number): NodeJS.ProcessEnv => (unix ? { NODE_GRPC_SOCKET: nodeSocket(i) } : { NODE_GRPC_HOST: config.internalHost, NODE_GRPC_PORT: '0' });
/** METRICS_PORT of the n-th child (0 facade, 1 scheduler, 1 + i node i): one Prometheus port each, or 0 (off) for all. */
const metricsPort = (n: number): string => String(config.metricsPort === 0 ? 0 : config.metricsPort + n);

/**
 * Embedded mode (neither DATABASE_URL nor SCHEDULER_DATABASE_URL): the scheduler and the facade run
 * in one control process on one embedded database; with external storage, each in its own process.
 */
const embedded = envOptional(base, 'DATABASE_URL') === undefined && envOptional(base, 'SCHEDULER_DATABASE_URL') === undefined;
const facadeEnv: NodeJS.ProcessEnv = { PORT: String(config.port), SCHEDULER_ADDRESS: schedulerAddress, METRICS_PORT: metricsPort(0) };
const scheduler = new Supervised(
  embedded
    ? { name: 'control', entry: '@tts/launcher/control', env: { ...base, ...schedulerListen, ...facadeEnv }, readyLine: '"facade listening"' }
    : { name: 'scheduler', entry: '@tts/scheduler/main', env: { ...base, ...schedulerListen, METRICS_PORT: metricsPort(1) }, readyLine: '"scheduler ready"' },
  logger,
);
const nodes = Array.from({ length: config.nodes }, (_, i) =>
  new Supervised(
    {
      name: `node-${i + 1}`,
      entry: '@tts/inference-node/main',
      env: { ...base, NODE_ID: base['NODE_ID'] ?? `node-${i + 1}`, ...nodeListen(i), SCHEDULER_ADDRESS: schedulerAddress, METRICS_PORT: metricsPort(2 + i) },
      readyLine: '"registered with scheduler"',
    },
    logger,
  ),
);
/** The facade's own process (external storage only; embedded, the control process serves it). */
const facade = embedded ? undefined : new Supervised({ name: 'facade', entry: '@tts/facade/main', env: { ...base, ...facadeEnv }, readyLine: '"facade listening"' }, logger);

let shuttingDown = false;
async function shutdown(signal: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info('stopping platform', { signal });
  for (const child of [facade, scheduler, ...nodes]) child?.beginStop();
  // The facade first (no new requests; a control process stops its facade, then its scheduler,
  // whose running jobs get their grace on the still running nodes), then the nodes.
  await (facade ?? scheduler).stop(config.shutdownGraceMs);
  await Promise.all(nodes.map((n) => n.stop(config.shutdownGraceMs)));
  await scheduler.stop(config.shutdownGraceMs);
  if (unix) removeSockets();
  logger.info('platform stopped');
  process.exit(0);
}
/** Removes the socket files a killed child left behind, and their directory when nothing else is in it. */
function removeSockets(): void {
  for (const file of [schedulerSocket, ...nodes.map((_, i) => nodeSocket(i))]) rmSync(file, { force: true });
  try {
    rmdirSync(config.socketDir);
  } catch {
    // not empty (a file the launcher did not make) or already gone: left as it is
  }
}
/**
 * Waits until the facade's /api/health says ready (it learns of the nodes from the scheduler every
 * TTS_ROUTING_REFRESH_MS, 250 ms by default), at most 10 s: "platform ready" then means a request
 * finds a node.
 */
async function facadeReady(): Promise<void> {
  if (config.port === 0) return;
  const host = envOptional(base, 'HOST') ?? '0.0.0.0';
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${config.port}/api/health`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !shuttingDown) {
    if (await healthSaysReady(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  logger.warn('the facade does not report ready yet', { health: url });
}
/** One GET of the health URL through node:http (fetch would load undici, memory the launcher would keep for this one use). */
function healthSaysReady(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          resolve((JSON.parse(body) as { ready?: unknown }).ready === true);
        } catch {
          resolve(false);
        }
      });
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

// The nodes find their analysis models where they start: installed (or named) before.
await ensureAnalysisModels(base, config.modelsAutoInstall, logger);
scheduler.start();
await scheduler.ready;
for (const n of nodes) n.start();
facade?.start();
await Promise.all([facade?.ready, ...nodes.map((n) => n.ready)]);
await facadeReady();
logger.info('platform ready', { url: `http://127.0.0.1:${config.port}`, nodes: config.nodes, internal_transport: config.internalTransport, scheduler: schedulerAddress, health: `http://127.0.0.1:${config.port}/api/health` });
