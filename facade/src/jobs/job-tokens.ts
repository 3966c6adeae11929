/**
 * Job tokens of the web family: `<job_id>.<expires_unix>.<hmac>` signed with a server secret
 * shared by every replica (kept in the database). They grant access to one job until expiry and
 * are verified in constant time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SecretRepository } from '../data/index.js';
import { TtsError } from '@tts/common';

/** Name of the signing secret in server_secrets. */
export const JOB_TOKEN_SECRET_NAME = 'job_token_hmac';

/** Signs and verifies job tokens. */
export class JobTokens {
  constructor(private readonly secret: Buffer, readonly ttlSec: number, private readonly now: () => number = Date.now) {}

  /** Loads (or creates once, for every replica) the signing secret. */
  static async open(secrets: SecretRepository, ttlSec: number): Promise<JobTokens> {
    const value = await secrets.getOrCreate(JOB_TOKEN_SECRET_NAME, () => randomBytes(32).toString('base64url'));
    return new JobTokens(Buffer.from(value, 'utf8'), ttlSec);
  }

  private mac(jobId: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${jobId}.${expires}`).digest('base64url');
  }

  /** A token for `jobId` and its expiry (unix seconds). */
  issue(jobId: string): { token: string; expiresUnix: number } {
    const expiresUnix = Math.floor(this.now() / 1000) + this.ttlSec;
    return { token: `${jobId}.${expiresUnix}.${this.mac(jobId, expiresUnix)}`, expiresUnix };
  }

  /**
   * Checks that `token` grants access to `jobId`. Throws JOB_TOKEN_MISSING, JOB_TOKEN_INVALID
   * (forged, malformed, another job's) or JOB_TOKEN_EXPIRED.
   */
  verify(token: string | undefined, jobId: string): void {
    if (token === undefined || token === '') throw new TtsError('JOB_TOKEN_MISSING');
    const parts = token.split('.');
    if (parts.length !== 3 || token.length > 512) throw new TtsError('JOB_TOKEN_INVALID');
    const [id, exp, mac] = parts as [string, string, string];
    if (!/^\d{1,12}$/.test(exp)) throw new TtsError('JOB_TOKEN_INVALID');
    const want = Buffer.from(this.mac(id, Number(exp)));
    const got = Buffer.from(mac);
    if (want.length !== got.length || !timingSafeEqual(want, got)) throw new TtsError('JOB_TOKEN_INVALID');
    if (id !== jobId) throw new TtsError('JOB_TOKEN_INVALID', 'The job token belongs to another job.');
    if (Number(exp) * 1000 <= this.now()) throw new TtsError('JOB_TOKEN_EXPIRED');
  }
}
