/**
 * Character quotas per key, checked before synthesis, per UTC day and UTC calendar month. The stage
 * of a window is set by the usage it would reach with this request:
 * - ok: below 80 % of the quota;
 * - warning: from 80 % to below 100 %;
 * - soft_limit: from 100 % up to the grace (105 %): still served;
 * - hard_block: beyond the grace: refused with QUOTA_EXCEEDED (429).
 * The key's stage is the worse of its two windows; it goes into the X-Quota-Stage header.
 * Concurrent requests of one key can overshoot by what they carry together; the grace absorbs it.
 *
 * With `cacheTtlMs` set, a key's figures are read from the database at most once per TTL and kept
 * current with this replica's own successful requests as they are recorded (so on one replica
 * they are exact); other replicas' usage shows up within the TTL plus their write interval.
 */
import type { ApiKeyRecord, CharactersUsed, UsageRepository } from '../data/index.js';
import { TtsError } from '@tts/common';
import type { Tier } from './tiers.js';

/** A quota stage, from best to worst. */
export type QuotaStage = 'ok' | 'warning' | 'soft_limit' | 'hard_block';

/** Response header carrying the stage. */
export const QUOTA_STAGE_HEADER = 'X-Quota-Stage';

const ORDER: readonly QuotaStage[] = ['ok', 'warning', 'soft_limit', 'hard_block'];

/** Thresholds of the stages, as fractions of the quota. */
export interface QuotaPolicy {
  /** @default 0.8 */
  readonly warningRatio: number;
  /** Extra fraction served after 100 %. @default 0.05 */
  readonly graceRatio: number;
}

/** The default thresholds. */
export const DEFAULT_QUOTA_POLICY: QuotaPolicy = { warningRatio: 0.8, graceRatio: 0.05 };

/** The stage of `used` characters against `limit` (null: unlimited). */
export function quotaStage(used: number, limit: number | null, policy: QuotaPolicy = DEFAULT_QUOTA_POLICY): QuotaStage {
  if (limit === null || used <= 0) return 'ok';
  if (used > limit * (1 + policy.graceRatio)) return 'hard_block';
  if (used >= limit) return 'soft_limit';
  if (used >= limit * policy.warningRatio) return 'warning';
  return 'ok';
}

/** The worse of two stages. */
export function worseStage(a: QuotaStage, b: QuotaStage): QuotaStage {
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}

/** One quota window of a key. */
export interface QuotaWindow {
  /** Characters used including the request being checked. */
  readonly used: number;
  /** The quota (the key's override, else the tier's); null when unlimited. */
  readonly limit: number | null;
  readonly stage: QuotaStage;
  /** Unix time (seconds) when the window starts over. */
  readonly resetUnix: number;
}

/** The quota state of a key. */
export interface QuotaStatus {
  /** The worse of the two windows. */
  readonly stage: QuotaStage;
  readonly daily: QuotaWindow;
  readonly monthly: QuotaWindow;
}

/**
 * Thrown when a request would push a key beyond the grace (QUOTA_EXCEEDED, 429, Retry-After until
 * the blocking window starts over). Carries the status for the X-Quota-Stage header.
 */
export class QuotaExceededError extends TtsError {
  /** The blocking status. */
  readonly status: QuotaStatus;

  constructor(status: QuotaStatus, nowMs: number) {
    const blocking = [status.daily, status.monthly].filter((w) => w.stage === 'hard_block');
    const resetUnix = Math.max(...blocking.map((w) => w.resetUnix));
    super('QUOTA_EXCEEDED', undefined, { retryAfterSec: Math.max(1, resetUnix - Math.floor(nowMs / 1000)) });
    this.status = status;
  }
}

/**
 * Whose characters a quota counts: an API key (its id and overrides), or a studio user
 * (`studio:<user_id>`, no overrides).
 */
export type QuotaSubject = Pick<ApiKeyRecord, 'keyId' | 'dailyCharQuota' | 'monthlyCharQuota'>;

/** The quotas that apply to a key: its overrides, else its tier's. */
export function effectiveQuotas(record: QuotaSubject, tier: Tier): { daily: number | null; monthly: number | null } {
  return { daily: record.dailyCharQuota ?? tier.dailyCharQuota, monthly: record.monthlyCharQuota ?? tier.monthlyCharQuota };
}

/** UTC calendar facts about an instant. */
export interface UtcPeriod {
  /** `YYYY-MM-DD` of the day. */
  readonly day: string;
  /** `YYYY-MM-01` of the month. */
  readonly monthStart: string;
  /** Unix seconds of the next day's start. */
  readonly nextDayUnix: number;
  /** Unix seconds of the next month's start. */
  readonly nextMonthUnix: number;
}

/** The UTC day and month containing `nowMs`. */
export function utcPeriod(nowMs: number): UtcPeriod {
  const d = new Date(nowMs);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const day = d.toISOString().slice(0, 10);
  return {
    day,
    monthStart: `${day.slice(0, 7)}-01`,
    nextDayUnix: Date.UTC(y, m, d.getUTCDate() + 1) / 1000,
    nextMonthUnix: Date.UTC(y, m + 1, 1) / 1000,
  };
}

/**
 * Usage recorded on this replica that the database may not hold yet (a write-behind buffer).
 * Inside `exclusive`, no write is in flight: each event is either committed or buffered.
 */
export interface PendingUsage {
  exclusive<R>(fn: () => Promise<R>): Promise<R>;
  /** Successful characters of the key still buffered, on `day` and from `monthStart` through `day`. */
  bufferedCharacters(keyId: string, day: string, monthStart: string): CharactersUsed;
  /** Calls `fn` for each successful request of an API key as it is recorded. */
  onRecorded(fn: (keyId: string, characters: number, at: Date) => void): void;
}

/** Options of `QuotaService`. */
export interface QuotaServiceOptions {
  readonly usage: UsageRepository;
  /** Usage not yet written; without it every check reads the database only. */
  readonly pending?: PendingUsage;
  /** How long a key's figures are reused before the database is read again, ms; 0 = every check. @default 0 */
  readonly cacheTtlMs?: number;
  /**
   * After the TTL, how long the figures may still answer while one background read refreshes
   * them, so a key in steady use never waits for the database. @default 30000 (with a cache)
   */
  readonly staleReuseMs?: number;
  readonly policy?: QuotaPolicy;
  /** Clock in milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** A key's figures and the UTC day they belong to. */
interface KeyUsage {
  readonly day: string;
  used: CharactersUsed;
  expiresAt: number;
}

/** Computes and enforces quota stages from the usage rollup. */
export class QuotaService {
  private readonly usage: UsageRepository;
  private readonly pending: PendingUsage | undefined;
  private readonly cacheTtlMs: number;
  private readonly staleReuseMs: number;
  private readonly policy: QuotaPolicy;
  private readonly now: () => number;
  private readonly cache = new Map<string, KeyUsage>();
  /** Keys being read: requests recorded meanwhile are added to `extra`. */
  private readonly reading = new Map<string, { day: string; extra: CharactersUsed; result: Promise<CharactersUsed> }>();

  constructor(options: QuotaServiceOptions) {
    this.usage = options.usage;
    this.pending = options.pending;
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
    this.staleReuseMs = this.cacheTtlMs > 0 ? (options.staleReuseMs ?? 30_000) : 0;
    this.policy = options.policy ?? DEFAULT_QUOTA_POLICY;
    this.now = options.now ?? Date.now;
    this.pending?.onRecorded((keyId, characters, at) => this.counted(keyId, characters, at));
  }

  /** The key's status if it now sent `requestChars` more characters (0: its current status). */
  async status(record: QuotaSubject, tier: Tier, requestChars = 0): Promise<QuotaStatus> {
    const period = utcPeriod(this.now());
    const used = await this.used(record.keyId, period);
    return this.statusFrom(record, tier, used.day + requestChars, used.month + requestChars, period);
  }

  /**
   * Checks a request of `requestChars` characters before synthesis: resolves to the status to
   * report (X-Quota-Stage) and record with the usage, or throws QuotaExceededError.
   */
  async check(record: QuotaSubject, tier: Tier, requestChars: number): Promise<QuotaStatus> {
    const status = await this.status(record, tier, requestChars);
    if (status.stage === 'hard_block') throw new QuotaExceededError(status, this.now());
    return status;
  }

  /** The status for known usage figures (used by reports that read many keys at once). */
  statusFrom(record: QuotaSubject, tier: Tier, dayUsed: number, monthUsed: number, period: UtcPeriod = utcPeriod(this.now())): QuotaStatus {
    const limits = effectiveQuotas(record, tier);
    const daily: QuotaWindow = { used: dayUsed, limit: limits.daily, stage: quotaStage(dayUsed, limits.daily, this.policy), resetUnix: period.nextDayUnix };
    const monthly: QuotaWindow = { used: monthUsed, limit: limits.monthly, stage: quotaStage(monthUsed, limits.monthly, this.policy), resetUnix: period.nextMonthUnix };
    return { stage: worseStage(daily.stage, monthly.stage), daily, monthly };
  }

  /** Successful characters of the key in the period's day and month, including usage not yet written. */
  private async used(keyId: string, period: UtcPeriod): Promise<CharactersUsed> {
    const cached = this.cache.get(keyId);
    const fresh = cached !== undefined && cached.day === period.day ? cached.expiresAt - this.now() : Number.NEGATIVE_INFINITY;
    if (cached !== undefined && fresh > 0) return cached.used;
    const inFlight = this.reading.get(keyId);
    if (cached !== undefined && fresh + this.staleReuseMs > 0) {
      // Stale but recent (and kept current with this replica's requests): answer now, refresh behind.
      if (inFlight === undefined) void this.read(keyId, period).catch(() => undefined);
      return cached.used;
    }
    if (inFlight !== undefined && inFlight.day === period.day) return inFlight.result;
    return this.read(keyId, period);
  }

  /** Reads the key's figures: the database plus what is buffered, counting requests recorded meanwhile. */
  private read(keyId: string, period: UtcPeriod): Promise<CharactersUsed> {
    if (this.pending === undefined) return this.usage.charactersUsed(keyId, period.day, period.monthStart);
    const pending = this.pending;
    const read = { day: period.day, extra: { day: 0, month: 0 }, result: Promise.resolve<CharactersUsed>({ day: 0, month: 0 }) };
    read.result = pending
      .exclusive(async () => {
        // No write runs now: every event is in the database or in the buffer, and events
        // recorded while the query runs are counted in `extra`.
        const buffered = pending.bufferedCharacters(keyId, period.day, period.monthStart);
        read.extra = { day: 0, month: 0 };
        this.reading.set(keyId, read);
        const stored = await this.usage.charactersUsed(keyId, period.day, period.monthStart);
        const used = { day: stored.day + buffered.day + read.extra.day, month: stored.month + buffered.month + read.extra.month };
        if (this.cacheTtlMs > 0) this.cache.set(keyId, { day: period.day, used, expiresAt: this.now() + this.cacheTtlMs });
        return used;
      })
      .finally(() => {
        if (this.reading.get(keyId) === read) this.reading.delete(keyId);
      });
    this.reading.set(keyId, read);
    return read.result;
  }

  /** A successful request of the key was just recorded. */
  private counted(keyId: string, characters: number, at: Date): void {
    const day = at.toISOString().slice(0, 10);
    const add = (used: CharactersUsed, periodDay: string): CharactersUsed =>
      day > periodDay || day.slice(0, 7) !== periodDay.slice(0, 7)
        ? used
        : { day: used.day + (day === periodDay ? characters : 0), month: used.month + characters };
    const read = this.reading.get(keyId);
    if (read !== undefined) read.extra = add(read.extra, read.day);
    const cached = this.cache.get(keyId);
    if (cached !== undefined) cached.used = add(cached.used, cached.day);
  }
}

/** The response headers of a status: X-Quota-Stage. */
export function quotaHeaders(status: QuotaStatus): Record<string, string> {
  return { [QUOTA_STAGE_HEADER]: status.stage };
}
