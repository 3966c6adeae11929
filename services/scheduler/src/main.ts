/** Process entry point of the scheduler: start, then stop gracefully on SIGTERM/SIGINT or when the launcher goes away. */
import { runService } from '@tts/common';
import { start } from './server.js';

await runService('scheduler', (logger) => start({ logger }));
