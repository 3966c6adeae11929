/** What to tell a person for each error code the public page can meet. */
import { ApiError } from './api.js';

export function messageFor(err: unknown): string {
  if (!(err instanceof ApiError)) return 'The service could not be reached. Check your connection and try again.';
  switch (err.code) {
    case 'RATE_LIMITED':
      return `Too many requests. Try again in ${err.retryAfterSec ?? 60} seconds.`;
    case 'QUOTA_EXCEEDED':
      return `The character quota is used up. It resets in ${Math.ceil((err.retryAfterSec ?? 3600) / 60)} minutes.`;
    case 'TTS_TEXT_TOO_LONG':
      return 'The text is too long. Shorten it or split it into parts.';
    case 'TTS_TEXT_EMPTY':
      return 'Type some text to speak first.';
    case 'CONSENT_REQUIRED':
      return 'Cloning a voice needs your confirmation that you have the speaker\'s consent.';
    case 'TTS_NODE_OVERLOADED':
    case 'TTS_NO_NODE_AVAILABLE':
    case 'SERVICE_SHUTTING_DOWN':
      return 'The service is busy right now. Please try again in a moment.';
    case 'TTS_VOICE_NOT_FOUND':
      return 'That voice is not available any more. Pick another one.';
    case 'AUTH_CHALLENGE_REQUIRED':
    case 'AUTH_CHALLENGE_COOKIE_INVALID':
    case 'AUTH_CHALLENGE_COOKIE_EXPIRED':
      return 'The browser check expired. Submit again to renew it.';
    case 'JOB_FAILED':
    case 'TTS_ENGINE_FAILED':
      return 'Synthesis failed. Try again, or pick another voice.';
    default:
      return `${err.message} (${err.code})`;
  }
}
