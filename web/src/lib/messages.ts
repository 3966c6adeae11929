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
    case 'AUTH_ADMIN_KEY_INVALID':
      return 'The administrator key was not accepted. Give it again.';
    case 'STUDIO_ADMIN_REQUIRED':
      return 'This needs a studio administrator or the administrator key.';
    case 'STUDIO_SELF_LOCKOUT':
      return 'You cannot demote or disable your own account.';
    case 'STUDIO_VIP_REQUEST_DECIDED':
      return 'This VIP request was already decided. Refresh the list.';
    case 'ABUSE_REPORT_TRANSITION_INVALID':
      return 'The report cannot move to that status from where it is now. Refresh it.';
    case 'HUB_TOKEN_INVALID':
      return 'The model hub refused the token. Check it has read access and try again.';
    case 'HUB_TIMEOUT':
      return 'The model hub did not answer in time; nothing was stored. Try again.';
    case 'HUB_UNREACHABLE':
      return 'The model hub could not be reached; nothing was stored.';
    case 'HUB_TOKEN_NOT_SET':
      return 'No hub token is stored.';
    case 'HUB_TOKEN_KEY_MISSING':
      return 'The server has no encryption key for the hub token (TTS_HUB_TOKEN_KEY).';
    default:
      return `${err.message} (${err.code})`;
  }
}
