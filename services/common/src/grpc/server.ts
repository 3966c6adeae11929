/**
 * Starts a gRPC server with the standard grpc.health.v1 service on it, on a given port (0 = any).
 */
import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { instrumentService } from '../telemetry/grpc.js';

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
  readonly port: number;
  readonly address: string;
  /** Sets the health status of every served service and of the server as a whole (""). */
  setServing(status: ServingStatus): void;
  /** Stops accepting calls, waits up to `graceMs` for in-flight calls, then forces shutdown. */
  stop(graceMs?: number): Promise<void>;
}

/** Options of startGrpcServer. */
export interface GrpcServerOptions {
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
  readonly services: readonly ServiceBinding[];
  /** Status the health service starts with. @default "SERVING" */
  readonly initialStatus?: ServingStatus;
}

/** Binds and starts the server; resolves once it listens. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new Server({
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    'grpc.keepalive_permit_without_calls': 1,
    // Channelz (grpc's introspection service) is not served here; its per-call bookkeeping costs ~0.1 ms.
    'grpc.enable_channelz': 0,
  });
  const initial = options.initialStatus ?? 'SERVING';
  const statusMap: Record<string, ServingStatus> = { '': initial };
  for (const s of options.services) statusMap[s.name] = initial;
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  // Each call runs in its caller's trace context, inside a server span (telemetry/grpc.ts).
  for (const s of options.services) server.addService(s.definition, instrumentService(s.definition, s.implementation));
  const host = options.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${options.port ?? 0}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    server,
    port,
    address: `${displayHost}:${port}`,
    setServing(status) {
      for (const name of Object.keys(statusMap)) health.setStatus(name, status);
    },
    async stop(graceMs = 10_000) {
      for (const name of Object.keys(statusMap)) health.setStatus(name, 'NOT_SERVING');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
