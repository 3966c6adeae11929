import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';
import { acceptWebSocket } from '../../realtime/upgrade.js';
import { serveSpeechStream } from '../../realtime/speech-stream.js';

/**
 * GET /v1/audio/speech/stream: the platform's speech WebSocket (messages in asyncapi.yaml). Access
 * control (an API key in a header, or a streaming token) ran before the handshake; from here every
 * answer is a message of the protocol.
 */
export const streamSpeech = handler('streamSpeech', ['speech', 'speechMessages', 'config', 'logger', 'sessionLimits'], async ({ req, res, deps, requestId }) => {
  const caller = callerOf(res);
  // The caller's session place is taken before the handshake, so a refusal is an HTTP 429.
  const release = deps.sessionLimits.acquire(caller);
  try {
    const ws = await acceptWebSocket(req, res);
    await serveSpeechStream({ ws, caller, requestId, speech: deps.speech, reader: deps.speechMessages, logger: deps.logger, maxMessageBytes: deps.config.wsMaxMessageBytes, limits: deps.sessionLimits });
  } finally {
    release();
  }
});
