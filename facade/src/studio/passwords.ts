/**
 * Studio passwords, as NIST SP 800-63B asks: length over composition (at least 12 characters, at
 * most 128, any Unicode, normalized NFKC before hashing), no composition rules, refused when the
 * password is on a list of passwords known from breaches (the ~49k-entry list zxcvbn ships, from
 * `@zxcvbn-ts/language-common`), is repetitive or sequential, or contains the account's own name
 * (STUDIO_PASSWORD_WEAK), and when zxcvbn (`@zxcvbn-ts/core` with the common and English
 * dictionaries and keyboard graphs) scores it below 3 of 4 (STUDIO_PASSWORD_GUESSABLE, its feedback
 * in the message): keyboard walks such as qwertyuiopas, repeated patterns such as ab12ab12ab12ab.
 *
 * Hashing is scrypt (N=2^15, r=8, p=1, 16-byte salt, 32-byte key; 32 MiB of memory per hash),
 * run on libuv's thread pool, never on the event loop. The stored form names its parameters
 * (`scrypt$15$8$1$<salt>$<key>`), so they can be raised later and old hashes still verify.
 * `verifyUnknown` runs the same work against a fixed dummy hash: a login for an unknown account
 * takes as long as one for a known account with a wrong password.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { TtsError } from '@tts/common';

/** Shortest accepted password, in characters (after normalization). */
export const PASSWORD_MIN_LENGTH = 12;

/** Longest accepted password, in characters: long passphrases fit, a 10 KB body does not. */
export const PASSWORD_MAX_LENGTH = 128;

/** Lowest accepted zxcvbn score (0-4): 3 is "safely unguessable" (about 10^8 guesses and more). */
export const PASSWORD_MIN_SCORE = 3;

/** The breached-password list and the zxcvbn estimator (common and English dictionaries, keyboard graphs). */
interface PasswordDictionaries {
  readonly breached: ReadonlySet<string>;
  readonly estimator: ZxcvbnFactory;
}

let dictionaries: Promise<PasswordDictionaries> | undefined;
/**
 * Loads the dictionaries at the first new password, not with the module: they take about 10 MB of
 * the facade's heap, which a platform whose studio nobody registers with never needs (bench/README.md,
 * `memory`). A failed load is tried again at the next password.
 */
function passwordDictionaries(): Promise<PasswordDictionaries> {
  dictionaries ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common'), import('@zxcvbn-ts/language-en')]);
    return {
      breached: new Set<string>(common.dictionary['passwords-common']),
      estimator: new ZxcvbnFactory({ dictionary: { ...common.dictionary, ...en.dictionary }, graphs: common.adjacencyGraphs, translations: en.translations }),
    };
  })().catch((err: unknown) => {
    dictionaries = undefined;
    throw err;
  });
  return dictionaries;
}

/** The form every password is compared and hashed in. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

function isRepetitiveOrSequential(p: string): boolean {
  const chars = [...p.toLowerCase()];
  if (new Set(chars).size <= 3) return true;
  // A run such as abcdefghijkl or 987654321098 (steps of +1 or -1 over the whole password).
  let up = 0;
  let down = 0;
  for (let i = 1; i < chars.length; i++) {
    const d = chars[i]!.codePointAt(0)! - chars[i - 1]!.codePointAt(0)!;
    if (d === 1 || d === -9) up++;
    if (d === -1 || d === 9) down++;
  }
  if (up >= chars.length - 2 || down >= chars.length - 2) return true;
  // A short unit repeated: abcabcabcabc, passpasspass.
  for (let unit = 1; unit <= chars.length / 2; unit++) {
    if (chars.length % unit !== 0) continue;
    const head = chars.slice(0, unit).join('');
    if (head.repeat(chars.length / unit) === chars.join('')) return true;
  }
  return false;
}

/** Strips digits and symbols around a word: Password123! -> password. */
function core(p: string): string {
  return p.toLowerCase().replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
}

/**
 * Checks a new password; throws STUDIO_PASSWORD_TOO_SHORT, STUDIO_PASSWORD_TOO_LONG or
 * STUDIO_PASSWORD_WEAK (with the reason) at `loc` ['body', 'password'].
 */
export async function checkNewPassword(password: string, context: { readonly username?: string | null; readonly email?: string | null }, field = 'password'): Promise<string> {
  const loc = ['body', field];
  const p = normalizePassword(password);
  const length = [...p].length;
  if (length < PASSWORD_MIN_LENGTH) throw new TtsError('STUDIO_PASSWORD_TOO_SHORT', `The password has ${length} characters; at least ${PASSWORD_MIN_LENGTH} are needed.`, { loc });
  if (length > PASSWORD_MAX_LENGTH) throw new TtsError('STUDIO_PASSWORD_TOO_LONG', `The password has ${length} characters; at most ${PASSWORD_MAX_LENGTH} are accepted.`, { loc });
  const { breached, estimator } = await passwordDictionaries();
  const lower = p.toLowerCase();
  if (breached.has(lower) || breached.has(core(p))) throw new TtsError('STUDIO_PASSWORD_WEAK', 'The password is on a list of passwords known from breaches.', { loc });
  if (isRepetitiveOrSequential(p)) throw new TtsError('STUDIO_PASSWORD_WEAK', 'The password is repetitive or sequential.', { loc });
  const names = [context.username, context.email?.split('@')[0]].map((name) => name?.normalize('NFKC').toLowerCase()).filter((n): n is string => n !== undefined && n.length >= 3);
  for (const n of names) {
    if (lower.includes(n)) throw new TtsError('STUDIO_PASSWORD_WEAK', 'The password contains the account\'s name.', { loc });
  }
  // Keyboard walks, dictionary words with substitutions, dates, repeated patterns: zxcvbn's estimate.
  const result = estimator.check(p, names);
  if (result.score < PASSWORD_MIN_SCORE) {
    const feedback = [result.feedback.warning, ...result.feedback.suggestions].filter((x): x is string => typeof x === 'string' && x !== '');
    throw new TtsError('STUDIO_PASSWORD_GUESSABLE', `The password's strength is ${result.score} of 4 (at least ${PASSWORD_MIN_SCORE} needed). ${feedback.join(' ')}`.trim(), { loc });
  }
  return p;
}

const PARAMS = { logN: 15, r: 8, p: 1, keyLength: 32 } as const;

function scryptAsync(password: string, salt: Buffer, logN: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r };
  return new Promise((resolve, reject) => scrypt(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** Hashes and verifies passwords; counts the hashes it runs (the login path's equal work is checked by it). */
export class PasswordHasher {
  /** How many scrypt computations this hasher has run (hash and verify). */
  hashRuns = 0;
  private readonly dummy: Promise<string>;

  constructor() {
    this.dummy = this.hashRaw(randomBytes(24).toString('base64'), false);
  }

  /** The stored form of a normalized password. */
  async hash(password: string): Promise<string> {
    return this.hashRaw(normalizePassword(password));
  }

  private async hashRaw(password: string, counted = true): Promise<string> {
    const salt = randomBytes(16);
    const key = await scryptAsync(password, salt, PARAMS.logN, PARAMS.r, PARAMS.p, PARAMS.keyLength);
    if (counted) this.hashRuns++;
    return `scrypt$${PARAMS.logN}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /** True when `password` matches `stored`; a malformed stored form never matches. */
  async verify(password: string, stored: string): Promise<boolean> {
    const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
    if (!m) return false;
    const expected = Buffer.from(m[5]!, 'base64');
    const key = await scryptAsync(normalizePassword(password), Buffer.from(m[4]!, 'base64'), Number(m[1]), Number(m[2]), Number(m[3]), expected.length);
    this.hashRuns++;
    return timingSafeEqual(key, expected);
  }

  /** The same work as `verify` for an account that does not exist; always false. */
  async verifyUnknown(password: string): Promise<false> {
    await this.verify(password, await this.dummy);
    return false;
  }
}
