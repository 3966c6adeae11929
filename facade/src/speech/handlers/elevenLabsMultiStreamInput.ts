import { handler } from '../../handler-context.js';
import { serveElevenLabsSocket } from './elevenlabs-socket-session.js';

/** GET /v1/text-to-speech/{voice_id}/multi-stream-input: ElevenLabs-compatible multi-context WebSocket. */
export const elevenLabsMultiStreamInput = handler('elevenLabsMultiStreamInput', ['speech', 'sessionLimits'], (ctx) => serveElevenLabsSocket('multi-stream-input', ctx));
