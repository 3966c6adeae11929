/**
 * Login throttling of the studio, the OWASP way (slow down, never lock an account out):
 *
 * - per (account, client address): 5 failures in 15 minutes refuse that address further attempts
 *   on that account until the window ends (429 `STUDIO_LOGIN_THROTTLED`, Retry-After);
 * - per client address: 20 failures in 15 minutes, over every account, refuse that address;
 * - per account, over every address: after 5 failures in 15 minutes, each further attempt needs a
 *   free slot, one per delay that doubles with each failure (1 s, 2 s, 4 s ... at most 60 s);
 *   an attempt without one is refused with Retry-After the delay, and counts nothing. A correct
 *   password from an address of its own therefore passes after at most that delay, however many
 *   failures other addresses made, while guessing from many addresses gets one guess per delay.
 *
 * Every attempt is counted before its password is checked, each counter by one atomic increment
 * in the shared kv (Redis or in process): of parallel attempts only those within the limits are
 * checked. A success takes back its own count (one decrement) and never erases the failures
 * counted beside it; an attempt refused before its check takes back what it counted.
 */
import { TtsError } from '@tts/common';
import type { Kv } from '@tts/common/kv';
import { sha256Hex } from '../identity/crypto.js';

/** The limits (documented in the README's Authentication section and the OpenAPI document). */
export const LOGIN_THROTTLE = {
  /** Failures per account and client address per window before that address is refused on it. */
  perAccountAddress: 5,
  /** Failures per client address (any account) per window before the address is refused. */
  perAddress: 20,
  /** Failures per account (any address) per window before attempts are slowed down. */
  perAccountFree: 5,
  /** Longest delay between two attempts on a slowed-down account, seconds. */
  maxDelaySec: 60,
  /** The window of every counter, seconds (fixed from its first failure). */
  windowSec: 15 * 60,
} as const;

/** An attempt allowed to check its password: report how it went. */
export interface LoginAttempt {
  /** The password was right: take back this attempt's counts (and only them). */
  succeeded(): Promise<void>;
}

/** The delay of an account's `n`-th failure in the window (n > perAccountFree), seconds. */
export function accountDelaySec(n: number): number {
  return Math.min(LOGIN_THROTTLE.maxDelaySec, 2 ** Math.max(0, n - LOGIN_THROTTLE.perAccountFree - 1));
}

/** Counts login attempts in the kv before their check; throws STUDIO_LOGIN_THROTTLED. */
export class LoginThrottle {
  constructor(private readonly kv: Kv) {}

  /**
   * Counts an attempt on the account named by `loginKey` from `address`; throws 429
   * STUDIO_LOGIN_THROTTLED (with Retry-After) when a limit refuses it, before any password check.
   */
  async attempt(loginKey: string, address: string): Promise<LoginAttempt> {
    const account = sha256Hex(loginKey);
    const addr = address || 'unknown';
    const keys = {
      pair: `studio-login:pair:${account}:${sha256Hex(addr)}`,
      address: `studio-login:addr:${addr}`,
      account: `studio-login:acct:${account}`,
      slot: `studio-login:slot:${account}`,
    };
    const window = LOGIN_THROTTLE.windowSec;
    const throttled = (retryAfterSec: number): TtsError => new TtsError('STUDIO_LOGIN_THROTTLED', undefined, { retryAfterSec });
    // The attacker's own budgets: refused attempts stay counted (the window does not extend).
    if ((await this.kv.incrBy(keys.pair, 1, window)) > LOGIN_THROTTLE.perAccountAddress) throw throttled(window);
    if ((await this.kv.incrBy(keys.address, 1, window)) > LOGIN_THROTTLE.perAddress) {
      await this.kv.incrBy(keys.pair, -1, window);
      throw throttled(window);
    }
    const n = await this.kv.incrBy(keys.account, 1, window);
    if (n > LOGIN_THROTTLE.perAccountFree) {
      const delay = accountDelaySec(n);
      if (!(await this.kv.setIfAbsent(keys.slot, '1', delay))) {
        // Not checked, so not counted: a user retrying after Retry-After never locks themselves out.
        await this.takeBack(keys);
        throw throttled(delay);
      }
    }
    return { succeeded: () => this.takeBack(keys) };
  }

  private async takeBack(keys: { pair: string; address: string; account: string }): Promise<void> {
    for (const key of [keys.pair, keys.address, keys.account]) await this.kv.incrBy(key, -1, LOGIN_THROTTLE.windowSec);
  }
}
