/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha), so `grpcurl` and other generic clients
 * list and describe the services a server binds without a copy of the .proto files: the
 * descriptors come from proto/tts/v1/*.proto (shipped in the images) and grpc-health-check's
 * health.proto, loaded once per process at the first reflection call, so a process that is never
 * asked pays neither the time nor the memory (bench/README.md, `memory`).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

/** The .proto files of tts.v1, relative to the proto package's root. */
const TTS_PROTO_FILES = ['tts/v1/synthesis.proto', 'tts/v1/scheduler.proto', 'tts/v1/analysis.proto'];

let definition: PackageDefinition | undefined;

type Handler = (...args: unknown[]) => unknown;
/** The reflection services (v1, v1alpha) a ReflectionService adds, by the path of their one method. */
type Captured = Map<string, { readonly definition: ServiceDefinition; readonly implementation: Record<string, Handler> }>;

/** What `service` adds to a server, caught by a stand-in server. */
function capture(service: ReflectionService): Captured {
  const out: Captured = new Map();
  service.addToServer({
    addService(serviceDefinition: ServiceDefinition, implementation: UntypedServiceImplementation) {
      out.set(Object.values(serviceDefinition)[0]!.path, { definition: serviceDefinition, implementation: implementation as Record<string, Handler> });
    },
  } as Pick<Server, 'addService'> as Server);
  return out;
}

/** The reflection services' definitions with empty descriptors: what a server registers up front. */
let shells: Captured | undefined;
/** Reflection services by the names they describe, built on the first reflection call. */
const reflections = new Map<string, Captured>();

/** The descriptors of tts.v1 and grpc.health.v1, loaded on first use. */
function packageDefinition(): PackageDefinition {
  if (!definition) {
    const protoRoot = path.dirname(fileURLToPath(import.meta.resolve('@tts/proto/package.json')));
    const { protoPath: healthProto } = createRequire(import.meta.url)('grpc-health-check') as { protoPath: string };
    definition = loadSync([...TTS_PROTO_FILES, healthProto], { includeDirs: [protoRoot] });
  }
  return definition;
}

/**
 * Adds the reflection service to `server`, describing `services` (fully-qualified names) and health.
 * The descriptors are loaded and indexed on the first reflection call, not at start: every
 * process serves reflection, few are ever asked (it saves each process the parsed .proto files).
 */
export function addReflection(server: Pick<Server, 'addService'>, services: readonly string[]): void {
  const names = [...services, 'grpc.health.v1.Health'];
  const key = names.join(',');
  shells ??= capture(new ReflectionService({}, { services: [] }));
  const real = (methodPath: string): Record<string, Handler> => {
    let built = reflections.get(key);
    if (!built) {
      built = capture(new ReflectionService(packageDefinition(), { services: names }));
      reflections.set(key, built);
    }
    return built.get(methodPath)!.implementation;
  };
  for (const [methodPath, { definition: serviceDefinition, implementation }] of shells) {
    const lazy = Object.fromEntries(Object.keys(implementation).map((method) => [method, (...args: unknown[]) => real(methodPath)[method]!(...args)]));
    server.addService(serviceDefinition, lazy);
  }
}
