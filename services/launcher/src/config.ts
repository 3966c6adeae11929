/**
 * Launcher configuration: how many nodes, which ports. Everything else in the environment is
 * passed through to the child processes, which read their own settings.
 */
import { envInt, envString, envLogLevel, type LogLevel } from '@tts/common';

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
  /** Interface the internal gRPC servers bind. @default "127.0.0.1" (TTS_INTERNAL_HOST) */
  readonly internalHost: string;
  /** Time a child gets to exit after SIGTERM before SIGKILL, ms. @default 15000 (TTS_SHUTDOWN_GRACE_MS) */
  readonly shutdownGraceMs: number;
  /**
   * First Prometheus port: the facade serves GET /metrics on it, the scheduler on the next, node i
   * on the one after (i from 1); 0 = no metrics endpoints. @default 9464 (METRICS_PORT)
   */
  readonly metricsPort: number;
}

/** Reads the launcher configuration. */
export function loadLauncherConfig(env: NodeJS.ProcessEnv = process.env): LauncherConfig {
  return Object.freeze({
    logLevel: envLogLevel(env),
    nodes: envInt(env, 'TTS_NODES', 1, { min: 1, max: 64 }),
    port: envInt(env, 'PORT', 8080, { min: 0, max: 65535 }),
    schedulerPort: envInt(env, 'SCHEDULER_GRPC_PORT', 50051, { min: 1, max: 65535 }),
    internalHost: envString(env, 'TTS_INTERNAL_HOST', '127.0.0.1'),
    shutdownGraceMs: envInt(env, 'TTS_SHUTDOWN_GRACE_MS', 15_000, { min: 100, max: 600_000 }),
    metricsPort: envInt(env, 'METRICS_PORT', 9464, { min: 0, max: 65535 - 65 }),
  });
}
