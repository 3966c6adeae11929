import { handler } from '../../handler-context.js';
import { serveElevenLabsSocket } from './elevenlabs-socket-session.js';

/** GET /v1/text-to-speech/{voice_id}/stream-input: ElevenLabs-compatible WebSocket, one utterance streamed in and out. */
export const elevenLabsStreamInput = handler('elevenLabsStreamInput', ['speech', 'sessionLimits'], (ctx) => serveElevenLabsSocket('stream-input', ctx));
