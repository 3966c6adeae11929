/**
 * Resolves the caller of an operation from its credentials, by authentication mode:
 * - api_key: X-API-Key is required.
 * - api_key_or_challenge (default): X-API-Key when sent (a bad key is refused, never downgraded to
 *   the challenge), otherwise the challenge pass cookie.
 * The result names the rate profile and the subject to count calls against.
 */
import { ConfigError } from '@tts/common';
import type { ApiKeyService, AuthenticatedKey } from './api-keys.js';
import { CHALLENGE_COOKIE, type ChallengeService, type VerifiedPass } from './challenge.js';
import { readCookie } from './cookies.js';

/** The authentication modes. */
export type AuthMode = 'api_key' | 'api_key_or_challenge';

/** Every mode, the default first. */
export const AUTH_MODES: readonly AuthMode[] = ['api_key_or_challenge', 'api_key'];

/** The default mode. */
export const DEFAULT_AUTH_MODE: AuthMode = 'api_key_or_challenge';

/** Parses TTS_AUTH_MODE (undefined or empty: the default); throws ConfigError naming the variable. */
export function parseAuthMode(value: string | undefined): AuthMode {
  const v = value?.trim() ?? '';
  if (v === '') return DEFAULT_AUTH_MODE;
  const mode = AUTH_MODES.find((m) => m === v);
  if (mode === undefined) throw new ConfigError('TTS_AUTH_MODE', `expected one of ${AUTH_MODES.join(', ')}, got "${v}"`);
  return mode;
}

/** An authenticated caller. */
export type Principal =
  | { readonly method: 'api_key'; readonly key: AuthenticatedKey; readonly rateProfile: 'api_key'; readonly subject: string }
  | { readonly method: 'challenge'; readonly pass: VerifiedPass; readonly rateProfile: 'challenge'; readonly subject: string };

/** The credentials of a request, as the middleware reads them. */
export interface RequestCredentials {
  /** The X-API-Key header. */
  readonly apiKey: string | undefined;
  /** The Cookie header. */
  readonly cookie: string | undefined;
  /** What passes are bound to (see ChallengeService), e.g. the User-Agent. */
  readonly clientBinding: string;
}

/** Options of `Authenticator`. */
export interface AuthenticatorOptions {
  readonly mode: AuthMode;
  readonly apiKeys: ApiKeyService;
  readonly challenge: ChallengeService;
}

/** Resolves principals. */
export class Authenticator {
  /** The configured mode. */
  readonly mode: AuthMode;
  private readonly apiKeys: ApiKeyService;
  private readonly challenge: ChallengeService;

  constructor(options: AuthenticatorOptions) {
    this.mode = options.mode;
    this.apiKeys = options.apiKeys;
    this.challenge = options.challenge;
  }

  /**
   * The caller of an operation that accepts the mode's credentials. Throws the AUTH_KEY_* errors
   * for a sent key; without a key: AUTH_KEY_MISSING in api_key mode, else the challenge errors
   * (AUTH_CHALLENGE_REQUIRED when no pass cookie is sent).
   */
  async authenticate(credentials: RequestCredentials): Promise<Principal> {
    if (credentials.apiKey !== undefined || this.mode === 'api_key') return this.withApiKey(credentials.apiKey);
    const pass = this.challenge.verifyPass(readCookie(credentials.cookie, CHALLENGE_COOKIE), credentials.clientBinding);
    return { method: 'challenge', pass, rateProfile: 'challenge', subject: pass.passId };
  }

  /** The caller of an operation that only accepts API keys (jobs, status, audio). */
  async withApiKey(apiKey: string | undefined): Promise<Principal & { method: 'api_key' }> {
    const key = await this.apiKeys.authenticate(apiKey);
    return { method: 'api_key', key, rateProfile: 'api_key', subject: key.record.keyId };
  }
}
