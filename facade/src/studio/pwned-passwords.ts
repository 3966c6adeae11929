/**
 * Breached-password check against the Have I Been Pwned "Pwned Passwords" range API
 * (TTS_PWNED_PASSWORDS_URL; off unless an operator sets it). k-anonymity: only the first 5 hex
 * digits of the password's SHA-1 leave the process (`GET <url>/range/<PREFIX>`, with
 * `Add-Padding: true` so the answer's size does not narrow the range down); the answer's
 * `SUFFIX:COUNT` lines are compared here. Padding lines carry count 0 and never match.
 *
 * The provider is a third party: a time-out, a network error or an unexpected answer fails OPEN
 * (the password is judged on the local checks alone) and is logged at warn, without the password,
 * its hash or prefix. Registration never depends on the provider being up.
 *
 * `@zxcvbn-ts/matcher-pwned` does the same request but needs @zxcvbn-ts/core 3 (the facade runs 4)
 * and folds the result into the score; this answers a distinct error code instead.
 */
import { createHash } from 'node:crypto';
import { TtsError, type Logger } from '@tts/common';

/** Largest range answer read: a padded answer is a few tens of KB. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** Options of PwnedPasswords. */
export interface PwnedPasswordsOptions {
  /** Base URL, e.g. https://api.pwnedpasswords.com (no trailing slash). */
  readonly baseUrl: string;
  /** Deadline of one range request, body included, ms. */
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/** Reads at most `limit` bytes of a body as text; throws past it. */
async function readBounded(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > limit) throw new Error('range answer too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The range API client. */
export class PwnedPasswords {
  private readonly origin: string;

  constructor(private readonly options: PwnedPasswordsOptions) {
    this.origin = new URL(options.baseUrl).origin;
  }

  /**
   * How often the (normalized) password appears in the provider's corpus; undefined when the
   * provider could not tell (failing open; logged).
   */
  async count(password: string): Promise<number | undefined> {
    const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
    const prefix = hash.slice(0, 5);
    const suffix = hash.slice(5);
    const started = Date.now();
    try {
      const res = await fetch(`${this.options.baseUrl}/range/${prefix}`, {
        headers: { 'add-padding': 'true', accept: 'text/plain' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`HTTP ${res.status}`);
      }
      const text = await readBounded(res, MAX_ANSWER_BYTES);
      for (const line of text.split('\n')) {
        const [s, c] = line.trim().split(':');
        if (s?.toUpperCase() === suffix) return Number.parseInt(c ?? '0', 10) || 0;
      }
      return 0;
    } catch (err) {
      // Never the URL (it holds the prefix), nor the password: the origin and the kind of failure.
      const e = err as Error;
      const reason = e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timeout' : e.message.startsWith('HTTP ') || e.message === 'range answer too large' ? e.message : e.name;
      this.options.logger.warn('breached-password check unavailable; the password is judged on the local checks alone', { provider: this.origin, reason, elapsed_ms: Date.now() - started });
      return undefined;
    }
  }

  /** Throws STUDIO_PASSWORD_BREACHED at ['body', field] when the provider has seen the password. */
  async check(password: string, field: string): Promise<void> {
    const seen = await this.count(password);
    if (seen !== undefined && seen > 0) throw new TtsError('STUDIO_PASSWORD_BREACHED', undefined, { loc: ['body', field] });
  }
}
