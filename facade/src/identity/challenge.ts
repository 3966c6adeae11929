/**
 * The anti-bot challenge: a proof of work that lets a client without an API key use the challenge
 * rate profile.
 *
 * 1. The server issues `c1.<id>.<difficulty>.<expires_unix>.<mac>`, signed with HMAC-SHA256 under a
 *    server secret: the server stores nothing per challenge, and the difficulty cannot be lowered.
 * 2. The client finds a `solution` (1 to 64 characters of [A-Za-z0-9_-]) such that
 *    SHA-256(`<challenge>:<solution>`) starts with `difficulty` zero bits (2^difficulty hashes on
 *    average), and sends both as form fields.
 * 3. The server checks the MAC (constant time), the expiry and the work, then marks the challenge id
 *    used in the Kv with set-if-absent (a second redemption is AUTH_CHALLENGE_REPLAYED) and issues a
 *    pass `p1.<pass_id>.<expires_unix>.<mac>`, sent as an HttpOnly cookie. The pass MAC also covers
 *    a hash of a client binding (chosen by the caller, e.g. the User-Agent), so a pass copied to
 *    another client does not verify.
 */
import { randomBytes } from 'node:crypto';
import type { SecretRepository } from '../data/index.js';
import type { Kv } from '@tts/common/kv';
import { ConfigError, TtsError } from '@tts/common';
import { hmac, sameDigest, sha256 } from './crypto.js';

/** Name of the pass cookie. */
export const CHALLENGE_COOKIE = 'tts_challenge';

/** Name of the challenge secret in `server_secrets`. */
export const CHALLENGE_SECRET_NAME = 'challenge_hmac_v1';

const CHALLENGE_PATTERN = /^c1\.([A-Za-z0-9_-]{22})\.(\d{1,2})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;
const PASS_PATTERN = /^p1\.([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;
const SOLUTION_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_TOKEN_LENGTH = 160;

/** A challenge as sent to the client. */
export interface IssuedChallenge {
  readonly challengeId: string;
  /** The string to hash and to send back verbatim. */
  readonly challenge: string;
  readonly algorithm: 'sha256';
  /** Leading zero bits required of SHA-256(`<challenge>:<solution>`). */
  readonly difficultyBits: number;
  readonly expiresUnix: number;
}

/** A pass issued for a solved challenge. */
export interface IssuedPass {
  readonly passId: string;
  readonly expiresUnix: number;
  /** The cookie value (see `passCookie`). */
  readonly cookieValue: string;
  /** Cookie Max-Age in seconds. */
  readonly maxAgeSec: number;
}

/** A verified pass. */
export interface VerifiedPass {
  /** Stable id of the pass: the challenge profile counts calls per pass. */
  readonly passId: string;
  readonly expiresUnix: number;
}

/** What the client sends to redeem a challenge (form fields `challenge` and `solution`). */
export interface ChallengeSolution {
  readonly challenge: unknown;
  readonly solution: unknown;
}

/** Options of `ChallengeService`. */
export interface ChallengeServiceOptions {
  /** HMAC key, at least 32 bytes, shared by every replica (see `loadChallengeSecret`). */
  readonly secret: Buffer;
  /** Where redeemed challenge ids are remembered until they expire. */
  readonly kv: Kv;
  /** Leading zero bits required, 1 to 32. @default 18 (about 260 000 hashes: well under a second in a browser) */
  readonly difficultyBits?: number;
  /** Seconds a challenge stays redeemable. @default 120 */
  readonly challengeTtlSec?: number;
  /** Seconds a pass stays valid. @default 3600 */
  readonly passTtlSec?: number;
  /** Clock in milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** Number of leading zero bits of `digest`. */
export function leadingZeroBits(digest: Buffer): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/** Finds a solution by brute force (what a client does; used by tests and reference clients). */
export function solveChallenge(challenge: string, difficultyBits: number): string {
  for (let n = 0; ; n++) {
    const solution = n.toString(36);
    if (leadingZeroBits(sha256(`${challenge}:${solution}`)) >= difficultyBits) return solution;
  }
}

const b64 = (buf: Buffer): string => buf.toString('base64url');

/** Issues and redeems challenges, and verifies passes. */
export class ChallengeService {
  /** Leading zero bits required. */
  readonly difficultyBits: number;
  /** Seconds a challenge stays redeemable. */
  readonly challengeTtlSec: number;
  /** Seconds a pass stays valid. */
  readonly passTtlSec: number;
  private readonly secret: Buffer;
  private readonly kv: Kv;
  private readonly now: () => number;

  constructor(options: ChallengeServiceOptions) {
    if (options.secret.length < 32) throw new RangeError('The challenge secret must be at least 32 bytes');
    this.secret = options.secret;
    this.kv = options.kv;
    this.difficultyBits = options.difficultyBits ?? 18;
    if (!Number.isInteger(this.difficultyBits) || this.difficultyBits < 1 || this.difficultyBits > 32) throw new RangeError('difficultyBits must be an integer in 1..32');
    this.challengeTtlSec = options.challengeTtlSec ?? 120;
    this.passTtlSec = options.passTtlSec ?? 3600;
    this.now = options.now ?? Date.now;
  }

  /** A new signed challenge. */
  issue(): IssuedChallenge {
    const challengeId = b64(randomBytes(16));
    const expiresUnix = this.nowSec() + this.challengeTtlSec;
    const body = `c1.${challengeId}.${this.difficultyBits}.${expiresUnix}`;
    return { challengeId, challenge: `${body}.${b64(hmac(this.secret, 'challenge', body))}`, algorithm: 'sha256', difficultyBits: this.difficultyBits, expiresUnix };
  }

  /**
   * Redeems a solved challenge for a pass bound to `clientBinding`. Throws AUTH_CHALLENGE_INVALID
   * (malformed or forged challenge, malformed or wrong solution), AUTH_CHALLENGE_EXPIRED or
   * AUTH_CHALLENGE_REPLAYED (403).
   */
  async redeem(input: ChallengeSolution, clientBinding: string): Promise<IssuedPass> {
    const { challenge, solution } = input;
    if (typeof challenge !== 'string' || challenge.length > MAX_TOKEN_LENGTH) throw invalid('challenge');
    const match = CHALLENGE_PATTERN.exec(challenge);
    if (match === null) throw invalid('challenge');
    const [, challengeId, difficulty, expires, mac] = match as unknown as [string, string, string, string, string];
    const body = `c1.${challengeId}.${difficulty}.${expires}`;
    if (!sameDigest(Buffer.from(mac, 'base64url'), hmac(this.secret, 'challenge', body))) throw invalid('challenge');
    const expiresUnix = Number(expires);
    const now = this.nowSec();
    if (now > expiresUnix) throw new TtsError('AUTH_CHALLENGE_EXPIRED', undefined, { loc: ['body', 'challenge'] });
    if (typeof solution !== 'string' || !SOLUTION_PATTERN.test(solution)) throw invalid('solution');
    if (leadingZeroBits(sha256(`${challenge}:${solution}`)) < Number(difficulty)) throw invalid('solution');
    // Remember the id until the challenge could no longer be redeemed anyway.
    const first = await this.kv.setIfAbsent(`challenge:used:${challengeId}`, '1', expiresUnix - now + 5);
    if (!first) throw new TtsError('AUTH_CHALLENGE_REPLAYED', undefined, { loc: ['body', 'challenge'] });
    return this.issuePass(clientBinding, now);
  }

  /**
   * Verifies a pass cookie value for `clientBinding`. Throws AUTH_CHALLENGE_REQUIRED (absent),
   * AUTH_CHALLENGE_COOKIE_INVALID (malformed, forged, other client) or
   * AUTH_CHALLENGE_COOKIE_EXPIRED (401).
   */
  verifyPass(cookieValue: string | undefined, clientBinding: string): VerifiedPass {
    if (cookieValue === undefined || cookieValue === '') throw new TtsError('AUTH_CHALLENGE_REQUIRED');
    const match = cookieValue.length > MAX_TOKEN_LENGTH ? null : PASS_PATTERN.exec(cookieValue);
    if (match === null) throw new TtsError('AUTH_CHALLENGE_COOKIE_INVALID');
    const [, passId, expires, mac] = match as unknown as [string, string, string, string];
    const expected = hmac(this.secret, 'pass', `p1.${passId}.${expires}`, b64(sha256(clientBinding)));
    if (!sameDigest(Buffer.from(mac, 'base64url'), expected)) throw new TtsError('AUTH_CHALLENGE_COOKIE_INVALID');
    const expiresUnix = Number(expires);
    if (this.nowSec() > expiresUnix) throw new TtsError('AUTH_CHALLENGE_COOKIE_EXPIRED');
    return { passId, expiresUnix };
  }

  private issuePass(clientBinding: string, now: number): IssuedPass {
    const passId = b64(randomBytes(16));
    const expiresUnix = now + this.passTtlSec;
    const body = `p1.${passId}.${expiresUnix}`;
    const mac = hmac(this.secret, 'pass', body, b64(sha256(clientBinding)));
    return { passId, expiresUnix, cookieValue: `${body}.${b64(mac)}`, maxAgeSec: this.passTtlSec };
  }

  private nowSec(): number {
    return Math.floor(this.now() / 1000);
  }
}

function invalid(field: 'challenge' | 'solution'): TtsError {
  return new TtsError('AUTH_CHALLENGE_INVALID', undefined, { loc: ['body', field] });
}

/** Options of `loadChallengeSecret`. */
export interface LoadChallengeSecretOptions {
  /** TTS_CHALLENGE_SECRET, if set: at least 32 characters; wins over the stored secret. */
  readonly envValue?: string | undefined;
  /** Where a generated secret is shared by every replica. */
  readonly secrets: SecretRepository;
}

/**
 * The challenge HMAC key: from TTS_CHALLENGE_SECRET when set, otherwise generated once and kept in
 * the database (`server_secrets`), so every replica signs and verifies with the same key.
 */
export async function loadChallengeSecret(options: LoadChallengeSecretOptions): Promise<Buffer> {
  const env = options.envValue?.trim();
  if (env !== undefined && env !== '') {
    if (env.length < 32) throw new ConfigError('TTS_CHALLENGE_SECRET', 'must be at least 32 characters');
    return Buffer.from(env, 'utf8');
  }
  const stored = await options.secrets.getOrCreate(CHALLENGE_SECRET_NAME, () => randomBytes(32).toString('base64'));
  return Buffer.from(stored, 'base64');
}
