import { TtsError } from '@tts/common';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** POST /v1/audio/speech/stream/tokens: a single-use token a browser opens the speech WebSocket with, for the calling key. */
export const createSpeechStreamToken = handler('createSpeechStreamToken', ['access'], async ({ res, deps }) => {
  const caller = callerOf(res);
  // The operation takes API keys only (its security): a token stands for a key.
  if (caller.method !== 'api_key') throw new TtsError('AUTH_KEY_MISSING');
  const { token, expiresAt } = await deps.access.streamTokens.issue(caller.subject);
  res.status(201).setHeader('Cache-Control', 'no-store');
  res.json({ token, expires_at: expiresAt });
});
