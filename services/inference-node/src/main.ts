/** Process entry point of an inference node: start, then drain on SIGTERM/SIGINT. */
import { exitWithParent, createLogger } from '@tts/common';
import { startTelemetry } from '@tts/common/telemetry';
import { start } from './server.js';

const logger = createLogger('inference-node');
// First, so every span and metric of the process is captured; never throws.
const telemetry = await startTelemetry({ serviceName: 'tts-inference-node', logger });
try {
  const node = await start({ logger });
  let signalled = false;
  const shutdown = (signal: string): void => {
    if (signalled) return;
    signalled = true;
    logger.info('shutting down', { signal });
    node.stop().then(() => telemetry.stop()).then(() => process.exit(0), (err: unknown) => {
      logger.error('shutdown failed', { err });
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  exitWithParent(shutdown);
} catch (err) {
  logger.error('inference node failed to start', { err });
  process.exit(1);
}
