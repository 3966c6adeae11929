/**
 * The model-hub token of the application: encrypted at rest with AES-256-GCM under a key that is
 * not stored beside it (TTS_HUB_TOKEN_KEY, or a key file under DATA_DIR on one machine), never
 * returned (only masked), and validated against the hub's whoami endpoint. The facade's hub-token
 * operations write it; `npm run models` reads it for gated models.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Database } from '../data/database.js';

/** Encrypts and decrypts tokens with one 32-byte key. */
export class HubTokenCipher {
  readonly fingerprint: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new RangeError('the hub token key must be 32 bytes');
    this.fingerprint = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  /** Parses a key given as 64 hex digits or base64 of 32 bytes; undefined when it is neither. */
  static parseKey(text: string): Buffer | undefined {
    const t = text.trim();
    if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
    const b = Buffer.from(t, 'base64');
    return b.length === 32 && /^[A-Za-z0-9+/_-]{43}=?$/.test(t) ? b : undefined;
  }

  encrypt(token: string): { ciphertext: string; iv: string; tag: string } {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return { ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  }

  /** The token, or undefined when it was not encrypted under this key (or was altered). */
  decrypt(sealed: { ciphertext: string; iv: string; tag: string }): string | undefined {
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** A token shown without its secret part. */
export function maskToken(token: string): string {
  const prefix = /^[a-z]{2,4}_/.exec(token)?.[0] ?? '';
  return `${prefix}****${token.slice(-4)}`;
}

/** The stored token's row (never the token itself). */
export interface StoredHubToken {
  readonly sealed: { ciphertext: string; iv: string; tag: string };
  readonly keyFingerprint: string;
  readonly masked: string;
  readonly setAt: Date;
  readonly validatedAt: Date | null;
  readonly valid: boolean | null;
  readonly account: string | null;
  readonly errorCode: string | null;
}

/** What a whoami call found. */
export interface HubValidation {
  /** null when the hub could not answer (timeout, unreachable, unexpected status). */
  readonly valid: boolean | null;
  readonly account: string | null;
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  /** HUB_TOKEN_INVALID, HUB_TIMEOUT or HUB_UNREACHABLE when not valid. */
  readonly errorCode: 'HUB_TOKEN_INVALID' | 'HUB_TIMEOUT' | 'HUB_UNREACHABLE' | null;
}

/** Asks the hub who the token belongs to (`GET <hub>/api/whoami-v2`, Bearer token). */
export async function validateHubToken(hubUrl: string, token: string, timeoutMs: number, fetchImpl: typeof fetch = fetch): Promise<HubValidation> {
  const started = performance.now();
  const latency = (): number => Math.round(performance.now() - started);
  try {
    const res = await fetchImpl(`${hubUrl.replace(/\/+$/, '')}/api/whoami-v2`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(timeoutMs) });
    if (res.status === 200) {
      const body = (await res.json().catch(() => ({}))) as { name?: unknown };
      return { valid: true, account: typeof body.name === 'string' ? body.name : null, httpStatus: 200, latencyMs: latency(), errorCode: null };
    }
    await res.body?.cancel();
    if (res.status === 401 || res.status === 403) return { valid: false, account: null, httpStatus: res.status, latencyMs: latency(), errorCode: 'HUB_TOKEN_INVALID' };
    return { valid: null, account: null, httpStatus: res.status, latencyMs: latency(), errorCode: 'HUB_UNREACHABLE' };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
    return { valid: null, account: null, httpStatus: null, latencyMs: latency(), errorCode: timedOut ? 'HUB_TIMEOUT' : 'HUB_UNREACHABLE' };
  }
}

type Row = Record<string, unknown>;

/** Reads and writes the `hub_token` row. */
export class HubTokenRepository {
  constructor(private readonly db: Database) {}

  async get(): Promise<StoredHubToken | undefined> {
    const r = (await this.db.query<Row>('SELECT * FROM hub_token WHERE id = $1::text', ['app']))[0];
    if (!r) return undefined;
    return {
      sealed: { ciphertext: String(r['ciphertext']), iv: String(r['iv']), tag: String(r['tag']) },
      keyFingerprint: String(r['key_fingerprint']),
      masked: `${String(r['prefix'])}****${String(r['last4'])}`,
      setAt: r['set_at'] as Date,
      validatedAt: (r['validated_at'] as Date | null) ?? null,
      valid: (r['valid'] as boolean | null) ?? null,
      account: (r['account'] as string | null) ?? null,
      errorCode: (r['error_code'] as string | null) ?? null,
    };
  }

  async set(token: string, cipher: HubTokenCipher, validation: HubValidation | null): Promise<void> {
    const sealed = cipher.encrypt(token);
    const prefix = /^[a-z]{2,4}_/.exec(token)?.[0] ?? '';
    await this.db.query(
      `INSERT INTO hub_token (id, ciphertext, iv, tag, key_fingerprint, last4, prefix, set_at, validated_at, valid, account, error_code)
       VALUES ('app', $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, now(), $7::timestamptz, $8::boolean, $9::text, $10::text)
       ON CONFLICT (id) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, iv = EXCLUDED.iv, tag = EXCLUDED.tag, key_fingerprint = EXCLUDED.key_fingerprint,
         last4 = EXCLUDED.last4, prefix = EXCLUDED.prefix, set_at = now(), validated_at = EXCLUDED.validated_at, valid = EXCLUDED.valid,
         account = EXCLUDED.account, error_code = EXCLUDED.error_code`,
      [sealed.ciphertext, sealed.iv, sealed.tag, cipher.fingerprint, token.slice(-4), prefix, validation ? new Date() : null, validation?.valid ?? null, validation?.account ?? null, validation?.errorCode ?? null],
    );
  }

  async recordValidation(v: HubValidation): Promise<void> {
    await this.db.query('UPDATE hub_token SET validated_at = now(), valid = $1::boolean, account = $2::text, error_code = $3::text WHERE id = $4::text', [v.valid, v.account, v.errorCode, 'app']);
  }

  /** True when a token was deleted. */
  async delete(): Promise<boolean> {
    return (await this.db.query<Row>('DELETE FROM hub_token WHERE id = $1::text RETURNING id', ['app'])).length > 0;
  }
}
