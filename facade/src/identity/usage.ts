/**
 * Usage recording and the two usage reports: the summary (per day, key and endpoint) and the
 * administrator's cost dashboard (per key and tier: characters, audio minutes, cost, quota stage).
 * Query parameters and bounds follow the interface: day_from/day_to (YYYY-MM-DD, UTC, inclusive),
 * key_id, endpoint or tier, limit 1..5000 (default 500).
 */
import type { ApiKeyRepository, UsageEventInput, UsageRepository, UsageSummaryRow, UsageTotals } from '../data/index.js';
import { parseDayRange, parseFilter, parseLimit } from './report-query.js';
import { utcPeriod, type QuotaService, type QuotaStatus } from './quotas.js';
import { TierTable } from './tier-table.js';
import { findPricedTier } from './tiers.js';
import type { UsageRecorder } from './usage-recorder.js';
import { round } from '../presenters/round.js';

/** Query of GET /api/usage/summary (raw or coerced values). */
export interface UsageSummaryQuery {
  readonly day_from?: unknown;
  readonly day_to?: unknown;
  readonly key_id?: unknown;
  readonly endpoint?: unknown;
  readonly limit?: unknown;
}

/** Query of GET /api/usage/cost-dashboard (raw or coerced values). */
export interface CostDashboardQuery {
  readonly day_from?: unknown;
  readonly day_to?: unknown;
  readonly key_id?: unknown;
  readonly tier?: unknown;
  readonly limit?: unknown;
}

/** The usage summary. */
export interface UsageSummaryReport {
  readonly dayFrom: string | null;
  readonly dayTo: string | null;
  readonly limit: number;
  readonly rows: UsageSummaryRow[];
  /** Groups before the limit. */
  readonly totalGroups: number;
  /** True when rows were left out by the limit. */
  readonly truncated: boolean;
  readonly totals: UsageTotals;
}

/** One key and tier of the cost dashboard. */
export interface CostDashboardRow {
  readonly keyId: string;
  readonly keyName: string | null;
  readonly tier: string | null;
  readonly requests: number;
  /** Successful characters in the range. */
  readonly characters: number;
  readonly audioMinutes: number;
  /** US dollars at the tier's price; null when the tier is no longer known. */
  readonly costUsd: number | null;
  /** The key's quota status now (today and this month); null when the key no longer exists. */
  readonly quota: QuotaStatus | null;
}

/** Totals of one tier. */
export interface CostTierSummary {
  readonly tier: string | null;
  readonly requests: number;
  readonly characters: number;
  readonly audioMinutes: number;
  readonly costUsd: number | null;
}

/** The cost dashboard. */
export interface CostDashboardReport {
  readonly dayFrom: string | null;
  readonly dayTo: string | null;
  readonly limit: number;
  readonly rows: CostDashboardRow[];
  readonly totalGroups: number;
  readonly truncated: boolean;
  readonly byTier: CostTierSummary[];
  /** Sums over every tier (cost over the tiers with a known price). */
  readonly totals: { readonly requests: number; readonly characters: number; readonly audioMinutes: number; readonly costUsd: number };
}

/** Options of `UsageService`. */
export interface UsageServiceOptions {
  readonly usage: UsageRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly quotas: QuotaService;
  /** Writes the events (behind the response, in batches). */
  readonly recorder: UsageRecorder;
  /** Clock in milliseconds (the "now" of quota stages). @default Date.now */
  readonly now?: () => number;
  /** The tiers of keys (their quotas). @default the built-in tiers */
  readonly tiers?: TierTable;
}


function costOf(tierName: string | null, characters: number): number | null {
  const tier = tierName === null ? undefined : findPricedTier(tierName);
  return tier === undefined ? null : round((characters / 1_000_000) * tier.pricePerMillionCharsUsd, 6);
}

/** Records usage and builds the usage reports. */
export class UsageService {
  private readonly usage: UsageRepository;
  private readonly apiKeys: ApiKeyRepository;
  private readonly quotas: QuotaService;
  private readonly recorder: UsageRecorder;
  private readonly now: () => number;
  private readonly tiers: TierTable;

  constructor(options: UsageServiceOptions) {
    this.usage = options.usage;
    this.recorder = options.recorder;
    this.apiKeys = options.apiKeys;
    this.quotas = options.quotas;
    this.now = options.now ?? Date.now;
    this.tiers = options.tiers ?? new TierTable();
  }

  /**
   * Records one request that reached synthesis (successful or not). Successful characters of an
   * API key count towards its quotas from this moment; the event is written within the
   * recorder's flush interval.
   */
  record(event: UsageEventInput): void {
    this.recorder.record(event);
  }

  /** Usage events waiting to be written, and dropped (storage unreachable with the buffer full). */
  backlog(): { buffered: number; dropped: number } {
    return this.recorder.backlog();
  }

  /** Writes every recorded event and waits (shutdown; before reading reports in tests). */
  drain(): Promise<void> {
    return this.recorder.drain();
  }

  /** GET /api/usage/summary. Throws USAGE_DATE_INVALID, USAGE_DATE_RANGE_INVALID, VALIDATION_FAILED (422). */
  async summary(query: UsageSummaryQuery): Promise<UsageSummaryReport> {
    const range = parseDayRange(query);
    const keyId = parseFilter(query.key_id, 'key_id');
    const endpoint = parseFilter(query.endpoint, 'endpoint');
    const limit = parseLimit(query.limit);
    const result = await this.usage.summary({ ...range, keyId, endpoint, limit });
    return { ...range, limit, rows: result.rows, totalGroups: result.totalGroups, truncated: result.totalGroups > result.rows.length, totals: result.totals };
  }

  /** GET /api/usage/cost-dashboard. Throws USAGE_DATE_INVALID, USAGE_DATE_RANGE_INVALID, VALIDATION_FAILED (422). */
  async costDashboard(query: CostDashboardQuery): Promise<CostDashboardReport> {
    const range = parseDayRange(query);
    const keyId = parseFilter(query.key_id, 'key_id');
    const tier = parseFilter(query.tier, 'tier');
    const limit = parseLimit(query.limit);
    const period = utcPeriod(this.now());
    const [result, keys, used] = await Promise.all([
      this.usage.costByKeyAndTier({ ...range, keyId, tier, limit }),
      this.apiKeys.list(),
      this.usage.charactersUsedByKey(period.day, period.monthStart),
    ]);
    const records = new Map(keys.map((k) => [k.keyId, k]));
    const rows = result.rows.map((r): CostDashboardRow => {
      const record = records.get(r.keyId);
      const now = used.get(r.keyId) ?? { day: 0, month: 0 };
      return {
        keyId: r.keyId,
        keyName: r.keyName,
        tier: r.tier,
        requests: r.requests,
        characters: r.characters,
        audioMinutes: round(r.audioSeconds / 60, 3),
        costUsd: costOf(r.tier, r.characters),
        quota: record === undefined ? null : this.quotas.statusFrom(record, this.tiers.ofKey(record.tier), now.day, now.month, period),
      };
    });
    const byTier = result.totalsByTier.map((t): CostTierSummary => ({
      tier: t.tier,
      requests: t.requests,
      characters: t.characters,
      audioMinutes: round(t.audioSeconds / 60, 3),
      costUsd: costOf(t.tier, t.characters),
    }));
    const totals = {
      requests: byTier.reduce((s, t) => s + t.requests, 0),
      characters: byTier.reduce((s, t) => s + t.characters, 0),
      audioMinutes: round(result.totalsByTier.reduce((s, t) => s + t.audioSeconds, 0) / 60, 3),
      costUsd: round(byTier.reduce((s, t) => s + (t.costUsd ?? 0), 0), 6),
    };
    return { ...range, limit, rows, totalGroups: result.totalGroups, truncated: result.totalGroups > rows.length, byTier, totals };
  }
}
