/**
 * Character quotas per key, checked before synthesis, per UTC day and UTC calendar month. The stage
 * of a window is set by the usage it would reach with this request:
 * - ok: below 80 % of the quota;
 * - warning: from 80 % to below 100 %;
 * - soft_limit: from 100 % up to the grace (105 %): still served;
 * - hard_block: beyond the grace: refused with QUOTA_EXCEEDED (429).
 * The key's stage is the worse of its two windows; it goes into the X-Quota-Stage header.
 * Concurrent requests of one key can overshoot by what they carry together; the grace absorbs it.
 */
import type { ApiKeyRecord, UsageRepository } from '../../../services/common/src/data/index.js';
import { TtsError } from '../../../services/common/src/index.js';
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

/** The quotas that apply to a key: its overrides, else its tier's. */
export function effectiveQuotas(record: ApiKeyRecord, tier: Tier): { daily: number | null; monthly: number | null } {
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

/** Options of `QuotaService`. */
export interface QuotaServiceOptions {
  readonly usage: UsageRepository;
  readonly policy?: QuotaPolicy;
  /** Clock in milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** Computes and enforces quota stages from the usage rollup. */
export class QuotaService {
  private readonly usage: UsageRepository;
  private readonly policy: QuotaPolicy;
  private readonly now: () => number;

  constructor(options: QuotaServiceOptions) {
    this.usage = options.usage;
    this.policy = options.policy ?? DEFAULT_QUOTA_POLICY;
    this.now = options.now ?? Date.now;
  }

  /** The key's status if it now sent `requestChars` more characters (0: its current status). */
  async status(record: ApiKeyRecord, tier: Tier, requestChars = 0): Promise<QuotaStatus> {
    const period = utcPeriod(this.now());
    const used = await this.usage.charactersUsed(record.keyId, period.day, period.monthStart);
    return this.statusFrom(record, tier, used.day + requestChars, used.month + requestChars, period);
  }

  /**
   * Checks a request of `requestChars` characters before synthesis: resolves to the status to
   * report (X-Quota-Stage) and record with the usage, or throws QuotaExceededError.
   */
  async check(record: ApiKeyRecord, tier: Tier, requestChars: number): Promise<QuotaStatus> {
    const status = await this.status(record, tier, requestChars);
    if (status.stage === 'hard_block') throw new QuotaExceededError(status, this.now());
    return status;
  }

  /** The status for known usage figures (used by reports that read many keys at once). */
  statusFrom(record: ApiKeyRecord, tier: Tier, dayUsed: number, monthUsed: number, period: UtcPeriod = utcPeriod(this.now())): QuotaStatus {
    const limits = effectiveQuotas(record, tier);
    const daily: QuotaWindow = { used: dayUsed, limit: limits.daily, stage: quotaStage(dayUsed, limits.daily, this.policy), resetUnix: period.nextDayUnix };
    const monthly: QuotaWindow = { used: monthUsed, limit: limits.monthly, stage: quotaStage(monthUsed, limits.monthly, this.policy), resetUnix: period.nextMonthUnix };
    return { stage: worseStage(daily.stage, monthly.stage), daily, monthly };
  }
}

/** The response headers of a status: X-Quota-Stage. */
export function quotaHeaders(status: QuotaStatus): Record<string, string> {
  return { [QUOTA_STAGE_HEADER]: status.stage };
}
