/**
 * API keys: created by an administrator, shown once, stored only as a SHA-256 hash.
 *
 * Format (`@tts/common`'s api-key-format.ts): `tts_<key_id>_<secret>`, the secret 40 random base62
 * characters (about 238 bits). The hash covers the whole string; a plain SHA-256 is enough because
 * the secret is random, not a password. Verification looks the key up by id and compares hashes
 * with `crypto.timingSafeEqual`.
 */
import type { ApiKeyRecord, ApiKeyRepository } from '../data/index.js';
import { API_KEY_ID_ALPHABET, API_KEY_ID_LENGTH, API_KEY_SECRET_LENGTH, TtsError, apiKeyIdOf, apiKeyOf, apiKeyPrefixOf, isApiKeyId } from '@tts/common';
import { randomString, sameDigest, sha256, sha256Hex } from './crypto.js';
import { effectiveRatePerMinute, isValidRatePerMinute, MAX_RATE_PER_MINUTE, MIN_RATE_PER_MINUTE } from './rate-limits.js';
import { TierTable } from './tier-table.js';
import { DEFAULT_TIER, type Tier } from './tiers.js';

/** Header carrying an API key (lower-case, as Node exposes request headers). */
export const API_KEY_HEADER = 'x-api-key';

/** Longer header values are refused without hashing them. */
const MAX_KEY_LENGTH = 128;
// Compared against when the key id is unknown, so unknown and wrong keys take the same path.
const DUMMY_DIGEST = sha256('tts_dummy');

/** A freshly generated key: the string to hand out once, and what is stored. */
export interface GeneratedApiKey {
  readonly keyId: string;
  /** Public beginning of the key, `tts_<key_id>`. */
  readonly prefix: string;
  /** The full key string. Return it once; never store or log it. */
  readonly apiKey: string;
  /** SHA-256 (hex) of `apiKey`. */
  readonly secretHash: string;
}

/** Generates a new key id, secret and hash. */
export function generateApiKey(): GeneratedApiKey {
  const keyId = randomString(API_KEY_ID_LENGTH, API_KEY_ID_ALPHABET);
  const apiKey = apiKeyOf(keyId, randomString(API_KEY_SECRET_LENGTH));
  return { keyId, prefix: apiKeyPrefixOf(keyId), apiKey, secretHash: sha256Hex(apiKey) };
}

/** What an administrator sends to create a key. */
export interface CreateApiKeyInput {
  /** 1 to 100 characters, no control characters. */
  readonly name: string;
  /** @default "free" */
  readonly tier?: string | undefined;
  /** Override of the tier's daily character quota; null or absent uses the tier's. */
  readonly dailyCharQuota?: number | null | undefined;
  /** Override of the tier's monthly character quota; null or absent uses the tier's. */
  readonly monthlyCharQuota?: number | null | undefined;
  /** The key's own calls per minute (1 to 100000); null or absent uses the tier's default. */
  readonly rateLimitPerMinute?: number | null | undefined;
}

/** A partial update; absent fields are unchanged, a null quota or rate override is removed. */
export interface ApiKeyPatch {
  readonly name?: string | undefined;
  readonly tier?: string | undefined;
  readonly disabled?: boolean | undefined;
  readonly dailyCharQuota?: number | null | undefined;
  readonly monthlyCharQuota?: number | null | undefined;
  readonly rateLimitPerMinute?: number | null | undefined;
}

/** A created key: the stored record and the key string, shown this once. */
export interface CreatedApiKey {
  readonly record: ApiKeyRecord;
  readonly apiKey: string;
}

/** The caller behind a verified key. */
export interface AuthenticatedKey {
  readonly record: ApiKeyRecord;
  readonly tier: Tier;
  /** The calls per minute the key may make: its own override, else its tier's default. */
  readonly ratePerMinute: number;
}

/** Options of `ApiKeyService`. */
export interface ApiKeyServiceOptions {
  readonly repository: ApiKeyRepository;
  /** The tiers keys may be given, with their configured rates. @default the built-in tiers */
  readonly tiers?: TierTable;
  /**
   * How long a looked-up key is reused without asking the database, in milliseconds. Updates made
   * through this service take effect at once on this replica; on other replicas after at most this
   * long. 0 disables the cache.
   * @default 2000
   */
  readonly cacheTtlMs?: number;
  /**
   * After the TTL, how long a cached key may still answer while one background read refreshes it
   * (stale-while-revalidate), so a key in steady use never waits for the database. On other
   * replicas an update then takes effect after the TTL plus that one read. 0 = always wait.
   * @default 30000
   */
  readonly staleReuseMs?: number;
  /** Most keys cached at once. @default 10000 */
  readonly cacheMaxEntries?: number;
  /** Clock in milliseconds. @default Date.now */
  readonly now?: () => number;
}

interface CachedCredential {
  readonly record: ApiKeyRecord;
  readonly digest: Buffer;
  readonly expiresAt: number;
}

const NAME_MAX = 100;
// C0 and C1 control characters.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > NAME_MAX || CONTROL.test(trimmed)) {
    throw new TtsError('VALIDATION_FAILED', `name must be 1 to ${NAME_MAX} characters without control characters.`, { loc: ['body', 'name'] });
  }
  return trimmed;
}

function checkQuota(value: number | null | undefined, field: string): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TtsError('VALIDATION_FAILED', `${field} must be a non-negative integer or null.`, { loc: ['body', field] });
  }
  return value;
}

function checkRate(value: number | null | undefined): number | null | undefined {
  if (value === undefined || value === null || isValidRatePerMinute(value)) return value;
  throw new TtsError('VALIDATION_FAILED', `rate_limit_per_minute must be an integer from ${MIN_RATE_PER_MINUTE} to ${MAX_RATE_PER_MINUTE}, or null for the tier's default.`, {
    loc: ['body', 'rate_limit_per_minute'],
  });
}

/** Creates, lists, updates and verifies API keys. */
export class ApiKeyService {
  private readonly repository: ApiKeyRepository;
  private readonly cacheTtlMs: number;
  private readonly staleReuseMs: number;
  private readonly cacheMaxEntries: number;
  private readonly now: () => number;
  private readonly tiers: TierTable;
  private readonly cache = new Map<string, CachedCredential>();
  /** Keys being read from the database. */
  private readonly reading = new Map<string, Promise<CachedCredential | undefined>>();
  /** Bumped by every update, so a read that started before it does not cache the old record. */
  private updates = 0;

  constructor(options: ApiKeyServiceOptions) {
    this.repository = options.repository;
    this.cacheTtlMs = options.cacheTtlMs ?? 2000;
    this.staleReuseMs = this.cacheTtlMs > 0 ? (options.staleReuseMs ?? 30_000) : 0;
    this.cacheMaxEntries = options.cacheMaxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.tiers = options.tiers ?? new TierTable();
  }

  /**
   * Creates a key. Throws VALIDATION_FAILED (name, quotas, rate) or AUTH_TIER_UNKNOWN. The returned
   * `apiKey` is the only time the secret exists outside the client.
   */
  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const name = checkName(input.name);
    const tier = this.tiers.require(input.tier ?? DEFAULT_TIER).name;
    const dailyCharQuota = checkQuota(input.dailyCharQuota, 'daily_char_quota') ?? null;
    const monthlyCharQuota = checkQuota(input.monthlyCharQuota, 'monthly_char_quota') ?? null;
    const rateLimitPerMinute = checkRate(input.rateLimitPerMinute) ?? null;
    const generated = generateApiKey();
    const record = await this.repository.insert({
      keyId: generated.keyId,
      prefix: generated.prefix,
      secretHash: generated.secretHash,
      name,
      tier,
      dailyCharQuota,
      monthlyCharQuota,
      rateLimitPerMinute,
    });
    return { record, apiKey: generated.apiKey };
  }

  /** Every key, oldest first; records never carry secrets or hashes. */
  list(): Promise<ApiKeyRecord[]> {
    return this.repository.list();
  }

  /** One key; throws AUTH_KEY_NOT_FOUND (404). */
  async get(keyId: string): Promise<ApiKeyRecord> {
    const record = isApiKeyId(keyId) ? await this.repository.find(keyId) : null;
    if (record === null) throw new TtsError('AUTH_KEY_NOT_FOUND', undefined, { loc: ['path', 'key_id'] });
    return record;
  }

  /**
   * Updates name, tier, disabled flag, quota or rate overrides. Throws AUTH_KEY_NOT_FOUND (404),
   * VALIDATION_FAILED or AUTH_TIER_UNKNOWN (422). Takes effect at once on this replica, on the
   * others once their cached copy of the key expires (`cacheTtlMs`, then one background read).
   */
  async update(keyId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord> {
    const name = patch.name === undefined ? undefined : checkName(patch.name);
    const tier = patch.tier === undefined ? undefined : this.tiers.require(patch.tier).name;
    const dailyCharQuota = checkQuota(patch.dailyCharQuota, 'daily_char_quota');
    const monthlyCharQuota = checkQuota(patch.monthlyCharQuota, 'monthly_char_quota');
    const rateLimitPerMinute = checkRate(patch.rateLimitPerMinute);
    const record = isApiKeyId(keyId)
      ? await this.repository.update(keyId, {
          ...(name === undefined ? {} : { name }),
          ...(tier === undefined ? {} : { tier }),
          ...(patch.disabled === undefined ? {} : { disabled: patch.disabled }),
          ...(dailyCharQuota === undefined ? {} : { dailyCharQuota }),
          ...(monthlyCharQuota === undefined ? {} : { monthlyCharQuota }),
          ...(rateLimitPerMinute === undefined ? {} : { rateLimitPerMinute }),
        })
      : null;
    this.updates++;
    this.cache.delete(keyId);
    if (record === null) throw new TtsError('AUTH_KEY_NOT_FOUND', undefined, { loc: ['path', 'key_id'] });
    return record;
  }

  /**
   * Verifies the X-API-Key header value. Throws AUTH_KEY_MISSING (absent or empty),
   * AUTH_KEY_INVALID (malformed, oversize, unknown or wrong secret: one code, so the answer does
   * not reveal which) or AUTH_KEY_DISABLED (only once the secret is proven, so a disabled key is not
   * revealed to someone without it).
   */
  async authenticate(header: string | undefined): Promise<AuthenticatedKey> {
    if (header === undefined || header === '') throw new TtsError('AUTH_KEY_MISSING');
    const keyId = header.length > MAX_KEY_LENGTH ? undefined : apiKeyIdOf(header);
    if (keyId === undefined) throw new TtsError('AUTH_KEY_INVALID');
    const stored = await this.credential(keyId);
    const matches = sameDigest(sha256(header), stored?.digest ?? DUMMY_DIGEST);
    if (stored === undefined || !matches) throw new TtsError('AUTH_KEY_INVALID');
    if (stored.record.disabled) throw new TtsError('AUTH_KEY_DISABLED');
    const tier = this.tiers.ofKey(stored.record.tier);
    return { record: stored.record, tier, ratePerMinute: effectiveRatePerMinute(stored.record.rateLimitPerMinute, tier) };
  }

  /**
   * The caller behind a key already proven another way (a streaming token it minted): the same
   * checks as `authenticate` but the secret's. Throws AUTH_KEY_INVALID (no such key: removed since)
   * or AUTH_KEY_DISABLED.
   */
  async byId(keyId: string): Promise<AuthenticatedKey> {
    const stored = isApiKeyId(keyId) ? await this.credential(keyId) : undefined;
    if (stored === undefined) throw new TtsError('AUTH_KEY_INVALID');
    if (stored.record.disabled) throw new TtsError('AUTH_KEY_DISABLED');
    const tier = this.tiers.ofKey(stored.record.tier);
    return { record: stored.record, tier, ratePerMinute: effectiveRatePerMinute(stored.record.rateLimitPerMinute, tier) };
  }

  private async credential(keyId: string): Promise<CachedCredential | undefined> {
    const now = this.now();
    const cached = this.cache.get(keyId);
    if (cached !== undefined && cached.expiresAt > now) return cached;
    if (cached !== undefined && cached.expiresAt + this.staleReuseMs > now) {
      // Stale but recent: answer now, refresh in the background (errors keep the stale entry).
      void this.read(keyId).catch(() => undefined);
      return cached;
    }
    return this.read(keyId);
  }

  /** Reads a key from the database into the cache; one read per key at a time. */
  private read(keyId: string): Promise<CachedCredential | undefined> {
    let pending = this.reading.get(keyId);
    if (pending === undefined) {
      pending = this.load(keyId).finally(() => this.reading.delete(keyId));
      this.reading.set(keyId, pending);
    }
    return pending;
  }

  private async load(keyId: string): Promise<CachedCredential | undefined> {
    const updates = this.updates;
    const found = await this.repository.findCredential(keyId);
    if (found === null) {
      this.cache.delete(keyId);
      return undefined;
    }
    const entry: CachedCredential = { record: found.record, digest: Buffer.from(found.secretHash, 'hex'), expiresAt: this.now() + this.cacheTtlMs };
    if (this.cacheTtlMs > 0 && updates === this.updates) {
      this.cache.delete(keyId);
      if (this.cache.size >= this.cacheMaxEntries) {
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) this.cache.delete(oldest);
      }
      this.cache.set(keyId, entry);
    }
    return entry;
  }
}
