/**
 * The application's model-hub token: set, cleared and validated by administrators, stored
 * encrypted (AES-256-GCM) and never returned; `token()` gives it to the model manager.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, TtsError, type Logger } from '@tts/common';
import type { Database } from '@tts/common/data';
import { HubTokenCipher, HubTokenRepository, maskToken, validateHubToken, type HubValidation } from '@tts/common/models';

/** Where the encryption key comes from. */
export interface HubTokenKeySource {
  readonly envValue: string | undefined;
  /** DATA_DIR of an embedded, persistent facade (a key file is generated there); undefined otherwise. */
  readonly dataDir: string | undefined;
  /** Embedded in memory: a key for this process only. */
  readonly ephemeral: boolean;
}

/** The cipher, or undefined when no key is available (external database and no TTS_HUB_TOKEN_KEY). */
export async function loadHubTokenCipher(source: HubTokenKeySource, logger: Logger): Promise<HubTokenCipher | undefined> {
  if (source.envValue !== undefined) {
    const key = HubTokenCipher.parseKey(source.envValue);
    if (!key) throw new ConfigError('TTS_HUB_TOKEN_KEY', 'must be 32 bytes as 64 hex digits or base64');
    return new HubTokenCipher(key);
  }
  if (source.ephemeral) return new HubTokenCipher(randomBytes(32));
  if (source.dataDir === undefined) return undefined;
  const file = path.resolve(source.dataDir, 'hub-token.key');
  try {
    const key = HubTokenCipher.parseKey(await readFile(file, 'utf8'));
    if (!key) throw new ConfigError('TTS_HUB_TOKEN_KEY', `${file} does not hold a 32-byte key`);
    return new HubTokenCipher(key);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    logger.info('hub token key generated', { file });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return loadHubTokenCipher(source, logger);
}

/** The status of the token as the API reports it. */
export interface HubTokenStatus {
  readonly configured: boolean;
  readonly masked: string | null;
  readonly setAt: Date | null;
  readonly decryptable: boolean | null;
  readonly lastValidation: { readonly at: Date; readonly valid: boolean | null; readonly account: string | null; readonly errorCode: string | null } | null;
  readonly validation: HubValidation | null;
}

/** Administers the token. */
export class HubTokenService {
  private readonly repo: HubTokenRepository;

  constructor(
    db: Database,
    private readonly cipher: HubTokenCipher | undefined,
    private readonly hubUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.repo = new HubTokenRepository(db);
  }

  private requireCipher(): HubTokenCipher {
    if (!this.cipher) throw new TtsError('HUB_TOKEN_KEY_MISSING');
    return this.cipher;
  }

  /** The decrypted token (model manager), or undefined when none is set. */
  async token(): Promise<string | undefined> {
    const stored = await this.repo.get();
    if (!stored) return undefined;
    const token = this.requireCipher().decrypt(stored.sealed);
    if (token === undefined) throw new TtsError('HUB_TOKEN_UNDECRYPTABLE');
    return token;
  }

  async status(validate: boolean, timeoutMs: number): Promise<HubTokenStatus> {
    const stored = await this.repo.get();
    if (!stored) return { configured: false, masked: null, setAt: null, decryptable: null, lastValidation: null, validation: null };
    const token = this.cipher?.decrypt(stored.sealed);
    let validation: HubValidation | null = null;
    if (validate && token !== undefined) {
      validation = await validateHubToken(this.hubUrl, token, timeoutMs, this.fetchImpl);
      await this.repo.recordValidation(validation);
    }
    const last = validation
      ? { at: new Date(), valid: validation.valid, account: validation.account, errorCode: validation.errorCode }
      : stored.validatedAt ? { at: stored.validatedAt, valid: stored.valid, account: stored.account, errorCode: stored.errorCode } : null;
    return { configured: true, masked: stored.masked, setAt: stored.setAt, decryptable: this.cipher ? token !== undefined : null, lastValidation: last, validation };
  }

  /**
   * Stores `token` (replacing any). With `validate`, the hub must accept it first: a refusal is 422
   * HUB_TOKEN_INVALID, no answer in time 504 HUB_TIMEOUT, no hub 502 HUB_UNREACHABLE; nothing is stored then.
   */
  async set(token: string, validate: boolean, timeoutMs: number): Promise<HubTokenStatus> {
    const cipher = this.requireCipher();
    let validation: HubValidation | null = null;
    if (validate) {
      validation = await validateHubToken(this.hubUrl, token, timeoutMs, this.fetchImpl);
      if (validation.errorCode !== null) throw new TtsError(validation.errorCode, undefined, { loc: ['body', 'token'] });
    }
    await this.repo.set(token, cipher, validation);
    return { ...(await this.status(false, timeoutMs)), validation };
  }

  /** Deletes the token; false when none was set. */
  clear(): Promise<boolean> {
    return this.repo.delete();
  }

  /** Validates `token`, or the stored one when absent (404 HUB_TOKEN_NOT_SET without either). */
  async validate(token: string | undefined, timeoutMs: number): Promise<{ validation: HubValidation; masked: string; stored: boolean }> {
    const candidate = token ?? (await this.token());
    if (candidate === undefined) throw new TtsError('HUB_TOKEN_NOT_SET');
    const validation = await validateHubToken(this.hubUrl, candidate, timeoutMs, this.fetchImpl);
    if (token === undefined) await this.repo.recordValidation(validation);
    return { validation, masked: maskToken(candidate), stored: token === undefined };
  }
}

/** The JSON of a validation. */
export function validationJson(v: HubValidation | null): Record<string, unknown> | null {
  return v === null ? null : { valid: v.valid, account: v.account, http_status: v.httpStatus, latency_ms: v.latencyMs, error_code: v.errorCode };
}

/** The JSON of a status. */
export function hubStatusJson(s: HubTokenStatus, hubUrl: string): Record<string, unknown> {
  return {
    configured: s.configured,
    masked: s.masked,
    set_at: s.setAt?.toISOString() ?? null,
    decryptable: s.decryptable,
    hub_url: hubUrl,
    last_validation: s.lastValidation === null ? null : { at: s.lastValidation.at.toISOString(), valid: s.lastValidation.valid, account: s.lastValidation.account, error_code: s.lastValidation.errorCode },
    validation: validationJson(s.validation),
  };
}
