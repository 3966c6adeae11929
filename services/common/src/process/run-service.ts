/**
 * The one entry point of the platform's service processes (facade, scheduler, inference node):
 * telemetry first, then the service; a graceful stop on SIGTERM, SIGINT, or when the launcher
 * that started the process goes away; exit code 1 when the service cannot start or stop. Files it
 * creates are private to its user (umask 077).
 */
import { createLogger, type Logger } from '../logging/logger.js';
import { startTelemetry } from '../telemetry/sdk.js';
import { exitWithParent } from './parent-watch.js';
import { usePrivateUmask } from './private-files.js';

/** A started service: what `runService` stops. */
export interface StoppableService {
  stop(): Promise<void>;
}

/**
 * Runs the service `name` (its log `service` field; telemetry reports it as `tts-<name>`):
 * `start(logger)` starts it and resolves once it serves.
 */
export async function runService(name: string, start: (logger: Logger) => Promise<StoppableService>): Promise<void> {
  usePrivateUmask();
  const logger = createLogger(name);
  // First, so every span and metric of the process is captured; never throws.
  const telemetry = await startTelemetry({ serviceName: `tts-${name}`, logger });
  let service: StoppableService;
  try {
    service = await start(logger);
  } catch (err) {
    logger.error(`${name} failed to start`, { err });
    process.exit(1);
  }
  let signalled = false;
  const shutdown = (signal: string): void => {
    if (signalled) return;
    signalled = true;
    logger.info('shutting down', { signal });
    service
      .stop()
      .then(() => telemetry.stop())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error('shutdown failed', { err });
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  exitWithParent(shutdown);
}
