/**
 * Starts a gRPC server with the standard grpc.health.v1 service on it, on a given port (0 = any)
 * or on a Unix domain socket file (processes sharing one machine).
 */
import { Server, ServerInterceptingCall, type ServerInterceptor, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { instrumentService } from '../telemetry/grpc.js';
import { addReflection } from './reflection.js';
import { grpcTransportSecurity } from './tls.js';
import { prepareSocketPath, removeSocket, restrictSocket, unixAddress } from './unix-socket.js';

/** One service to serve. */
export interface ServiceBinding {
  readonly definition: ServiceDefinition;
  readonly implementation: UntypedServiceImplementation;
  /** Fully-qualified name for health checks, e.g. "tts.v1.Synthesizer". */
  readonly name: string;
}

/** A running gRPC server. */
export interface RunningGrpcServer {
  readonly server: Server;
  /** TCP port listened on; 0 on a Unix domain socket. */
  readonly port: number;
  /** Address clients dial: "host:port", or "unix:/path" on a socket file. */
  readonly address: string;
  /** Sets the health status of every served service and of the server as a whole (""). */
  setServing(status: ServingStatus): void;
  /**
   * Reports NOT_SERVING, lets the calls in progress send their whole answer, then closes the
   * connections (GOAWAY) and stops listening; whatever is still open after `graceMs` is cut.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Options of startGrpcServer. */
export interface GrpcServerOptions {
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
  /**
   * Listen on this Unix domain socket file instead of host:port: its directory is made private
   * (0700), a stale file replaced, the socket restricted to its owner (0600) and removed on stop.
   */
  readonly socketPath?: string;
  readonly services: readonly ServiceBinding[];
  /** Status the health service starts with. @default "SERVING" */
  readonly initialStatus?: ServingStatus;
  /** Serve gRPC server reflection describing `services` and health (grpcurl). @default true */
  readonly reflection?: boolean;
}

/** Binds and starts the server; resolves once it listens. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const calls = new OpenCalls();
  const server = new Server({
    interceptors: [calls.interceptor],
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    'grpc.keepalive_permit_without_calls': 1,
    // Channelz (grpc's introspection service) is not served here: its per-call bookkeeping sat on every request's path (bench/README.md, `foundation`).
    'grpc.enable_channelz': 0,
  });
  const initial = options.initialStatus ?? 'SERVING';
  const statusMap: Record<string, ServingStatus> = { '': initial };
  for (const s of options.services) statusMap[s.name] = initial;
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  // Each call runs in its caller's trace context, inside a server span (telemetry/grpc.ts).
  for (const s of options.services) server.addService(s.definition, instrumentService(s.definition, s.implementation));
  if (options.reflection ?? true) addReflection(server, options.services.map((s) => s.name));
  const host = options.host ?? '127.0.0.1';
  const socketPath = options.socketPath;
  if (socketPath !== undefined) await prepareSocketPath(socketPath);
  const target = socketPath !== undefined ? unixAddress(socketPath) : `${host.includes(':') ? `[${host}]` : host}:${options.port ?? 0}`;
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(target, grpcTransportSecurity().serverCredentials(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  if (socketPath !== undefined) restrictSocket(socketPath);
  const port = socketPath !== undefined ? 0 : bound;
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    server,
    port,
    address: socketPath !== undefined ? target : `${displayHost}:${port}`,
    setServing(status) {
      for (const name of Object.keys(statusMap)) health.setStatus(name, status);
    },
    async stop(graceMs = 10_000) {
      const deadline = Date.now() + graceMs;
      for (const name of Object.keys(statusMap)) health.setStatus(name, 'NOT_SERVING');
      // The calls in progress send their whole answer before the connections are closed. A
      // grpc-js client whose keepalive ping falls between a GOAWAY and the end of an answer still
      // arriving fails that call UNAVAILABLE ("Connection dropped", the session no longer takes
      // pings): tryShutdown sends the GOAWAY at once, so it comes after the trailers instead.
      await calls.settled(graceMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(
          () => {
            server.forceShutdown();
            resolve();
          },
          Math.max(0, deadline - Date.now()),
        );
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (socketPath !== undefined) removeSocket(socketPath);
    },
  };
}

/**
 * The server's calls in progress, each from its start until its status has gone out after its last
 * message, or its stream closed (grpc-js tells a server interceptor both as onCancel).
 */
class OpenCalls {
  private readonly open = new Set<object>();
  private onEnd: (() => void) | undefined;

  readonly interceptor: ServerInterceptor = (_method, call) => {
    const token = {};
    this.open.add(token);
    return new ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onCancel: () => {
            this.open.delete(token);
            this.onEnd?.();
          },
        });
      },
    });
  };

  /** Resolves once every call open now has ended (calls started later are not waited for), or after `ms`. */
  settled(ms: number): Promise<void> {
    const waiting = new Set(this.open);
    if (waiting.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.onEnd = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.onEnd = () => {
        for (const token of waiting) if (!this.open.has(token)) waiting.delete(token);
        if (waiting.size === 0) done();
      };
    });
  }
}
