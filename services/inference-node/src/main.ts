/** Process entry point of an inference node: start, then stop gracefully on SIGTERM/SIGINT or when the launcher goes away. */
import { runService } from '@tts/common';
import { start } from './server.js';

await runService('inference-node', (logger) => start({ logger }));
