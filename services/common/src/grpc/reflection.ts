/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha), so `grpcurl` and other generic clients
 * list and describe the services a server binds without a copy of the .proto files: the
 * descriptors come from proto/tts/v1/*.proto (shipped in the images) and grpc-health-check's
 * health.proto, loaded once per process (~0.1 s at the first server's start).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

/** The .proto files of tts.v1, relative to the proto package's root. */
const TTS_PROTO_FILES = ['tts/v1/synthesis.proto', 'tts/v1/scheduler.proto', 'tts/v1/analysis.proto'];

let definition: PackageDefinition | undefined;
/** Reflection services by the names they describe (indexing the descriptors costs ~35 ms). */
const reflections = new Map<string, ReflectionService>();

/** The descriptors of tts.v1 and grpc.health.v1, loaded on first use. */
function packageDefinition(): PackageDefinition {
  if (!definition) {
    const protoRoot = path.dirname(fileURLToPath(import.meta.resolve('@tts/proto/package.json')));
    const { protoPath: healthProto } = createRequire(import.meta.url)('grpc-health-check') as { protoPath: string };
    definition = loadSync([...TTS_PROTO_FILES, healthProto], { includeDirs: [protoRoot] });
  }
  return definition;
}

/** Adds the reflection service to `server`, describing `services` (fully-qualified names) and health. */
export function addReflection(server: Pick<Server, 'addService'>, services: readonly string[]): void {
  const names = [...services, 'grpc.health.v1.Health'];
  const key = names.join(',');
  let reflection = reflections.get(key);
  if (!reflection) {
    reflection = new ReflectionService(packageDefinition(), { services: names });
    reflections.set(key, reflection);
  }
  reflection.addToServer(server);
}
