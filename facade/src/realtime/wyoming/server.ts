/**
 * The Wyoming server (Home Assistant's protocol for voice services, over TCP), started with the
 * facade when TTS_WYOMING_PORT is set. Wyoming has no authentication: the server listens on
 * loopback unless TTS_WYOMING_HOST says otherwise, and every synthesis is the use of one API key
 * (TTS_WYOMING_API_KEY): its tier's rate, quota, concurrency and usage, as if it had called the
 * HTTP API. Each connection is a `WyomingConnection` (connection.ts).
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@tts/common';
import type { AccessServices } from '../../identity/access-services.js';
import { RateLimitedError } from '../../identity/index.js';
import type { Caller } from '../../middleware/access.js';
import { WyomingConnection, type ConnectionOptions, type WyomingServices } from './connection.js';

export type { WyomingServices } from './connection.js';

/** Where and how the server listens. */
export interface WyomingServerOptions extends ConnectionOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
}

/** A listening Wyoming server. */
export interface RunningWyoming {
  readonly host: string;
  readonly port: number;
  /** Open client connections. */
  connections(): number;
  /** Stops listening, closes every connection (their syntheses are cancelled) and waits for them. */
  stop(): Promise<void>;
}

/**
 * The caller of the Wyoming server's syntheses: `apiKey` authenticated at each call (a revoked or
 * disabled key is refused at once) and counted against its rate, as an HTTP call with it is.
 */
export function wyomingCaller(access: Pick<AccessServices, 'authenticator' | 'rateLimits'>, apiKey: string): () => Promise<Caller> {
  return async () => {
    const caller = await access.authenticator.withApiKey(apiKey);
    const decision = await access.rateLimits.consume(caller.rateProfile, caller.subject, caller.key.ratePerMinute);
    if (!decision.allowed) throw new RateLimitedError(decision);
    return caller;
  };
}

/** Listens for Wyoming clients. */
export async function startWyomingServer(services: WyomingServices, options: WyomingServerOptions, logger: Logger): Promise<RunningWyoming> {
  const open = new Set<WyomingConnection>();
  const server: Server = createServer((socket) => {
    const connection = new WyomingConnection(socket, services, options);
    open.add(connection);
    void connection.done().then(() => open.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger.error('wyoming server error', { error: err.message }));
  const port = (server.address() as AddressInfo).port;
  logger.info('wyoming server listening', { host: options.host, port });
  let stopping: Promise<void> | undefined;
  return {
    host: options.host,
    port,
    connections: () => open.size,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        const connections = [...open];
        for (const c of connections) c.close();
        await Promise.all([closed, ...connections.map((c) => c.done())]);
      })();
      return stopping;
    },
  };
}
