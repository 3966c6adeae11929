/**
 * What a supervising process needs of @tts/common (configuration readers, logging, socket paths, how
 * to start a child) without gRPC, telemetry or storage: the launcher imports this entry instead of
 * the index, so the supervisor, which lives as long as the platform, loads none of them
 * (bench/README.md, `memory`).
 */
export { ConfigError, envBool, envEnum, envInt, envLogLevel, envOptional, envString } from './config/env.js';
export { createLogger, setLogLevel, type Logger, type LogLevel } from './logging/logger.js';
export { MAX_SOCKET_PATH, ensurePrivateDir, unixAddress } from './grpc/unix-socket.js';
export { nodeArgsFor } from './process/node-args.js';
export { usePrivateUmask } from './process/private-files.js';
