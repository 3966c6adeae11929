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
      // The server's message says how long the text is and the caller's own limit.
      return `The text is too long: ${err.message} Shorten it or split it into parts.`;
    case 'TTS_TEXT_EMPTY':
      return 'Type some text to speak first.';
    case 'SSML_INVALID':
      return `The text starts with <speak> but its SSML has a mistake: ${err.message}`;
    case 'REFERENCE_NOT_FOUND':
      return 'The reference clip is not available (expired, or not yours). Upload it again.';
    case 'STUDIO_PRESET_NOT_FOUND':
      return 'That preset does not exist for your studio account.';
    case 'UPLOAD_TOO_LARGE':
      return 'The clip is too large. Send a shorter or compressed one.';
    case 'ANALYSIS_UNAVAILABLE':
      return `This server cannot analyse voices right now: ${err.message}`;
    case 'REFERENCE_CHECK_FAILED':
      return 'This clip did not pass the check, so it cannot be used to clone a voice. Record or upload another clip.';
    case 'CONSENT_REQUIRED':
      return 'Cloning a voice needs your confirmation that you have the speaker\'s consent.';
    case 'TTS_OVERLOADED':
    case 'TTS_NODE_OVERLOADED':
    case 'TTS_NO_NODE_AVAILABLE':
    case 'SERVICE_SHUTTING_DOWN':
      return 'The service is busy right now. Please try again in a moment.';
    case 'STREAM_BUFFER_FULL':
      return 'You are typing faster than the speech can follow. Pause a moment, then go on.';
    case 'STREAM_CLIENT_TOO_SLOW':
      return 'This browser fell behind the live audio and the session was closed. Type again to reopen it.';
    case 'AUTH_STREAM_TOKEN_INVALID':
      return 'The live connection could not be opened. Turn live mode off and on again.';
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
    case 'STUDIO_LOGIN_FAILED':
      return 'Wrong username, email or password.';
    case 'STUDIO_LOGIN_THROTTLED':
    {
      const wait = err.retryAfterSec ?? 900;
      return `Too many failed log-ins. Try again in ${wait < 120 ? `${wait} seconds` : `${Math.ceil(wait / 60)} minutes`}.`;
    }
    case 'STUDIO_ACCOUNT_DISABLED':
      return 'This account is disabled. Contact an administrator.';
    case 'STUDIO_USERNAME_TAKEN':
      return 'That username is taken. Choose another one.';
    case 'STUDIO_EMAIL_TAKEN':
      return 'An account with that email already exists. Log in instead.';
    case 'STUDIO_USERNAME_INVALID':
      return 'A username has 3 to 32 letters, digits, dots, dashes or underscores, starting with a letter or digit.';
    case 'STUDIO_EMAIL_INVALID':
      return 'That email address does not look right.';
    case 'STUDIO_LOGIN_NAME_MISSING':
      return 'Give a username or an email address.';
    case 'STUDIO_PASSWORD_TOO_SHORT':
      return 'The password is too short: use at least 12 characters.';
    case 'STUDIO_PASSWORD_TOO_LONG':
      return 'The password is too long: use at most 128 characters.';
    case 'STUDIO_USERNAME_MIXED_SCRIPT':
      return 'A username is written in one script: do not mix, for example, Latin and Cyrillic letters.';
    case 'STUDIO_USERNAME_CONFUSABLE':
      return 'That username looks like one already taken. Choose one that reads differently.';
    case 'STUDIO_PASSWORD_GUESSABLE':
      return `That password is too easy to guess. ${err.message}`;
    case 'STUDIO_PASSWORD_BREACHED':
      return 'That password appears in known data breaches. Choose one you use nowhere else.';
    case 'STUDIO_PASSWORD_WEAK':
      return 'That password is too easy to guess (common, repetitive, or contains the name). Choose another.';
    case 'STUDIO_PASSWORD_INCORRECT':
      return 'The current password is wrong.';
    case 'STUDIO_ALREADY_REGISTERED':
      return 'This account is already registered.';
    case 'STUDIO_SESSION_INVALID':
    case 'STUDIO_SESSION_MISSING':
      return 'Your studio session has ended. Log in again or continue as a guest.';
    case 'STUDIO_PRESET_LIMIT_REACHED':
      return 'You have as many presets as your account allows. Delete one, register, or become VIP.';
    case 'STUDIO_PRESET_NOT_FOUND':
      return 'That preset no longer exists. Refresh the list.';
    case 'STUDIO_SHARE_LIMIT_REACHED':
      return 'You have as many active share links as your account allows. Revoke one first.';
    case 'STUDIO_SHARE_NOT_FOUND':
      return 'This share link does not exist.';
    case 'STUDIO_SHARE_REVOKED':
      return 'This share link was revoked by its owner.';
    case 'STUDIO_SHARE_EXPIRED':
      return 'This share link has expired.';
    case 'STUDIO_REGISTRATION_REQUIRED':
      return 'This needs a registered account. Register first; a guest keeps its presets.';
    case 'STUDIO_SLIP_DUPLICATE':
      return 'This slip was already submitted. Each transfer counts once.';
    case 'STUDIO_SLIP_NOT_IMAGE':
      return 'The slip must be a JPEG, PNG or WebP image.';
    case 'UPLOAD_TOO_LARGE':
      return 'The file is too large (at most 4 MiB).';
    case 'STUDIO_VIP_PLAN_UNKNOWN':
      return 'That VIP plan does not exist any more. Reload the page.';
    case 'STUDIO_VIP_REQUEST_PENDING':
      return 'You already have a VIP request waiting for review.';
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
