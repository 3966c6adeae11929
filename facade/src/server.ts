/**
 * Starts and stops the REST/OpenAI facade.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../../services/common/src/logging/logger.js';
import { createApp } from './app.js';
import { loadFacadeConfig, type FacadeConfig } from './config.js';
import { openAccessServices } from './domain/access-services.js';
import { ClusterView } from './domain/cluster.js';
import { Metering } from './domain/metering.js';
import { loadOpenApiDocument } from './domain/openapi-document.js';
import { Readiness } from './domain/readiness.js';
import { SynthesisGateway } from './domain/synthesis.js';
import type { FacadeDeps } from './operation.js';

/** Options of start(): any config field overrides the environment's. */
export interface FacadeStartOptions extends Partial<FacadeConfig> {
  readonly logger?: Logger;
}

/** A running facade. */
export interface RunningFacade {
  readonly port: number;
  /** Base URL, e.g. http://127.0.0.1:8080 */
  readonly url: string;
  readonly deps: FacadeDeps;
  /** Stops accepting connections and waits for in-flight requests (up to graceMs). */
  stop(graceMs?: number): Promise<void>;
}

/** Builds the facade and listens. */
export async function start(options: FacadeStartOptions = {}): Promise<RunningFacade> {
  const overrides = Object.fromEntries(Object.entries(options).filter(([k, v]) => v !== undefined && k !== 'logger'));
  const config: FacadeConfig = { ...loadFacadeConfig(), ...overrides };
  const logger = options.logger ?? createLogger('facade');
  const cluster = new ClusterView(config.schedulerAddress);
  const access = await openAccessServices(config, logger);
  const deps: FacadeDeps = {
    config,
    gateway: new SynthesisGateway({ schedulerAddress: config.schedulerAddress, timeoutMs: config.requestTimeoutMs, retries: config.synthRetries }),
    cluster,
    readiness: new Readiness(cluster, config.defaultVoice),
    openapi: loadOpenApiDocument(),
    access,
    metering: new Metering(access, logger),
    logger,
  };
  let server: Server;
  try {
    const app = createApp(deps);
    server = await new Promise((resolve, reject) => {
      const s = app.listen(config.port, config.host, () => resolve(s));
      s.once('error', reject);
    });
  } catch (err) {
    await access.close();
    throw err;
  }
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  logger.info('facade listening', { url: `http://${host}:${port}`, scheduler: config.schedulerAddress });
  let stopping: Promise<void> | undefined;
  return {
    port,
    url: `http://${host}:${port}`,
    deps,
    stop(graceMs = 10_000) {
      stopping ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }).then(async () => {
        await deps.metering.drain();
        await access.close();
      });
      return stopping;
    },
  };
}
