/** Process entry point of the facade. */
import { exitWithParent, createLogger } from '@tts/common';
import { startTelemetry } from '@tts/common/telemetry';
import { start } from './server.js';

const logger = createLogger('facade');
// First, so every span and metric of the process is captured; never throws.
const telemetry = await startTelemetry({ serviceName: 'tts-facade', logger });
try {
  const facade = await start({ logger });
  let signalled = false;
  const shutdown = (signal: string): void => {
    if (signalled) return;
    signalled = true;
    logger.info('shutting down', { signal });
    facade.stop().then(() => telemetry.stop()).then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  exitWithParent(shutdown);
} catch (err) {
  logger.error('facade failed to start', { err });
  process.exit(1);
}
