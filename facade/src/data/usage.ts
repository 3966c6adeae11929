/**
 * Usage events (append-only, one per request that reached synthesis) and the per-key daily rollup
 * of successful characters that quota checks read. Days are UTC calendar days.
 */
import type { Database } from '@tts/common/data';
import { DAY_RANGE_SQL } from './day-range.js';

/** Outcome of a request as recorded for usage. */
export type UsageStatus = 'ok' | 'error';

/** Quota stage at the time of a request (see the identity quotas). */
export type RecordedQuotaStage = 'ok' | 'warning' | 'soft_limit' | 'hard_block';

/** One request that reached synthesis. */
export interface UsageEventInput {
  readonly requestId: string | null;
  /** The API key, or null for challenge, studio and other key-less callers. */
  readonly keyId: string | null;
  /** How the caller authenticated: api_key, challenge, studio, ... */
  readonly authMethod: string;
  /** The operation, e.g. "POST /api/tts". */
  readonly endpoint: string;
  /** The key's tier at the time of the request (prices the cost dashboard). */
  readonly tier: string | null;
  /** Characters of the request text. */
  readonly characters: number;
  /** Seconds of audio produced (0 on failure). */
  readonly audioSeconds: number;
  readonly status: UsageStatus;
  readonly httpStatus: number;
  /** Catalogue code of the failure, or null. */
  readonly errorCode: string | null;
  readonly latencyMs: number;
  readonly quotaStage: RecordedQuotaStage | null;
  /** When the request happened. @default now (the database clock) */
  readonly at?: Date;
}

/** An inclusive range of UTC days as `YYYY-MM-DD`, already validated; null leaves a side open. */
export interface DayRange {
  readonly dayFrom: string | null;
  readonly dayTo: string | null;
}

/** Filters of the usage summary. */
export interface UsageSummaryFilter extends DayRange {
  readonly keyId: string | null;
  readonly endpoint: string | null;
  /** Maximum rows returned. */
  readonly limit: number;
}

/** Usage of one key on one endpoint on one day. Characters and audio count successful requests only. */
export interface UsageSummaryRow {
  readonly day: string;
  readonly keyId: string | null;
  readonly endpoint: string;
  readonly requests: number;
  readonly okRequests: number;
  readonly failedRequests: number;
  readonly characters: number;
  readonly audioSeconds: number;
  readonly avgLatencyMs: number;
  readonly p50LatencyMs: number;
  readonly p95LatencyMs: number;
}

/** Totals over every matching event (not only the returned rows). */
export interface UsageTotals {
  readonly requests: number;
  readonly okRequests: number;
  readonly failedRequests: number;
  readonly characters: number;
  readonly audioSeconds: number;
}

/** Result of `summary`. */
export interface UsageSummaryResult {
  /** Newest day first, then key id and endpoint. */
  readonly rows: UsageSummaryRow[];
  /** Number of (day, key, endpoint) groups before the limit. */
  readonly totalGroups: number;
  readonly totals: UsageTotals;
}

/** Filters of the cost report. */
export interface CostFilter extends DayRange {
  readonly keyId: string | null;
  readonly tier: string | null;
  readonly limit: number;
}

/** Usage of one key in one tier over the range; characters and audio of successful requests. */
export interface CostRow {
  readonly keyId: string;
  /** The key's current name, or null when the key row is gone. */
  readonly keyName: string | null;
  readonly tier: string | null;
  readonly requests: number;
  readonly characters: number;
  readonly audioSeconds: number;
}

/** Per-tier totals over every matching event. */
export interface CostTierTotal {
  readonly tier: string | null;
  readonly requests: number;
  readonly characters: number;
  readonly audioSeconds: number;
}

/** Result of `costByKeyAndTier`. */
export interface CostResult {
  /** Most characters first. */
  readonly rows: CostRow[];
  readonly totalGroups: number;
  readonly totalsByTier: CostTierTotal[];
}

/** Successful characters of a key in the current day and month. */
export interface CharactersUsed {
  readonly day: number;
  readonly month: number;
}

interface SummaryRow {
  day: string;
  key_id: string | null;
  endpoint: string;
  requests: number;
  ok_requests: number;
  failed_requests: number;
  characters: number;
  audio_seconds: number;
  avg_latency_ms: number;
  p50_latency_ms: number;
  p95_latency_ms: number;
  total_groups: number;
}

interface TotalsRow {
  requests: number;
  ok_requests: number;
  failed_requests: number;
  characters: number;
  audio_seconds: number;
}

interface CostSqlRow {
  key_id: string;
  key_name: string | null;
  tier: string | null;
  requests: number;
  characters: number;
  audio_seconds: number;
  total_groups: number;
}

/**
 * Usage events with the audio of the jobs they submitted (job_usage, settled when each job ended):
 * a submission is metered before its job is synthesized, with no audio of its own.
 */
const USAGE_WITH_JOB_AUDIO = `(SELECT e.created_at, e.key_id, e.endpoint, e.tier, e.characters, e.status, e.latency_ms,
         e.audio_seconds + COALESCE(j.audio_seconds, 0) AS audio_seconds
    FROM usage_events e LEFT JOIN job_usage j ON j.request_id = e.request_id) AS usage_events`;

/** Reads and writes `usage_events` and `usage_daily`. */
export class UsageRepository {
  constructor(private readonly db: Database) {}

  /**
   * Appends the event and, for a successful request of an API key, adds its characters to the
   * key's daily rollup, atomically.
   */
  async record(event: UsageEventInput): Promise<void> {
    await this.recordMany([event]);
  }

  /**
   * Appends the events and adds the successful ones of API keys to their keys' daily rollups, in
   * one statement (so atomically: either every event and its rollup, or nothing).
   */
  async recordMany(events: readonly UsageEventInput[]): Promise<void> {
    if (events.length === 0) return;
    const payload = JSON.stringify(
      events.map((e) => ({
        created_at: e.at?.toISOString() ?? null, request_id: e.requestId, key_id: e.keyId, auth_method: e.authMethod, endpoint: e.endpoint,
        tier: e.tier, characters: e.characters, audio_seconds: e.audioSeconds, status: e.status, http_status: e.httpStatus,
        error_code: e.errorCode, latency_ms: e.latencyMs, quota_stage: e.quotaStage,
      })),
    );
    await this.db.query(
      `WITH inserted AS (
         INSERT INTO usage_events (created_at, request_id, key_id, auth_method, endpoint, tier, characters, audio_seconds,
                                   status, http_status, error_code, latency_ms, quota_stage)
         SELECT COALESCE(r.created_at, now()), r.request_id, r.key_id, r.auth_method, r.endpoint, r.tier, r.characters, r.audio_seconds,
                r.status, r.http_status, r.error_code, r.latency_ms, r.quota_stage
         FROM jsonb_to_recordset($1::text::jsonb) AS r(created_at timestamptz, request_id text, key_id text, auth_method text, endpoint text,
              tier text, characters integer, audio_seconds double precision, status text, http_status integer, error_code text,
              latency_ms double precision, quota_stage text)
         RETURNING created_at, key_id, characters, audio_seconds, status
       )
       INSERT INTO usage_daily AS d (key_id, day, characters, audio_seconds, requests)
       SELECT key_id, (created_at AT TIME ZONE 'UTC')::date, SUM(characters)::bigint, SUM(audio_seconds), COUNT(*)
       FROM inserted WHERE key_id IS NOT NULL AND status = 'ok'
       GROUP BY 1, 2
       ON CONFLICT (key_id, day) DO UPDATE SET
         characters = d.characters + EXCLUDED.characters,
         audio_seconds = d.audio_seconds + EXCLUDED.audio_seconds,
         requests = d.requests + EXCLUDED.requests`,
      [payload],
    );
  }

  /** Successful characters of `keyId` on `day`, and from `monthStart` through `day` (both `YYYY-MM-DD`, UTC). */
  async charactersUsed(keyId: string, day: string, monthStart: string): Promise<CharactersUsed> {
    const rows = await this.db.query<{ day: number; month: number }>(
      `SELECT COALESCE(SUM(characters) FILTER (WHERE day = $2::date), 0)::int8 AS day,
              COALESCE(SUM(characters), 0)::int8 AS month
       FROM usage_daily WHERE key_id = $1::text AND day BETWEEN $3::date AND $2::date`,
      [keyId, day, monthStart],
    );
    return { day: rows[0]?.day ?? 0, month: rows[0]?.month ?? 0 };
  }

  /** `charactersUsed` for every key with usage from `monthStart` through `day`. */
  async charactersUsedByKey(day: string, monthStart: string): Promise<Map<string, CharactersUsed>> {
    const rows = await this.db.query<{ key_id: string; day: number; month: number }>(
      `SELECT key_id,
              COALESCE(SUM(characters) FILTER (WHERE day = $1::date), 0)::int8 AS day,
              COALESCE(SUM(characters), 0)::int8 AS month
       FROM usage_daily WHERE day BETWEEN $2::date AND $1::date GROUP BY key_id`,
      [day, monthStart],
    );
    return new Map(rows.map((r) => [r.key_id, { day: r.day, month: r.month }]));
  }

  /** Usage per day, key and endpoint, with totals over all matching events. */
  async summary(filter: UsageSummaryFilter): Promise<UsageSummaryResult> {
    const params = [filter.dayFrom, filter.dayTo, filter.keyId, filter.endpoint];
    const where = `${DAY_RANGE_SQL} AND ($3::text IS NULL OR key_id = $3::text) AND ($4::text IS NULL OR endpoint = $4::text)`;
    const rows = await this.db.query<SummaryRow>(
      `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, key_id, endpoint,
              COUNT(*)::int8 AS requests,
              COUNT(*) FILTER (WHERE status = 'ok')::int8 AS ok_requests,
              COUNT(*) FILTER (WHERE status <> 'ok')::int8 AS failed_requests,
              COALESCE(SUM(characters) FILTER (WHERE status = 'ok'), 0)::int8 AS characters,
              COALESCE(SUM(audio_seconds) FILTER (WHERE status = 'ok'), 0)::float8 AS audio_seconds,
              AVG(latency_ms)::float8 AS avg_latency_ms,
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms))::float8 AS p50_latency_ms,
              (percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms))::float8 AS p95_latency_ms,
              COUNT(*) OVER ()::int8 AS total_groups
       FROM ${USAGE_WITH_JOB_AUDIO} WHERE ${where}
       GROUP BY 1, 2, 3
       ORDER BY 1 DESC, 2 NULLS LAST, 3
       LIMIT $5::integer`,
      [...params, filter.limit],
    );
    const totals = await this.db.query<TotalsRow>(
      `SELECT COUNT(*)::int8 AS requests,
              COUNT(*) FILTER (WHERE status = 'ok')::int8 AS ok_requests,
              COUNT(*) FILTER (WHERE status <> 'ok')::int8 AS failed_requests,
              COALESCE(SUM(characters) FILTER (WHERE status = 'ok'), 0)::int8 AS characters,
              COALESCE(SUM(audio_seconds) FILTER (WHERE status = 'ok'), 0)::float8 AS audio_seconds
       FROM ${USAGE_WITH_JOB_AUDIO} WHERE ${where}`,
      params,
    );
    const t = totals[0]!;
    return {
      rows: rows.map((r) => ({
        day: r.day,
        keyId: r.key_id,
        endpoint: r.endpoint,
        requests: r.requests,
        okRequests: r.ok_requests,
        failedRequests: r.failed_requests,
        characters: r.characters,
        audioSeconds: r.audio_seconds,
        avgLatencyMs: r.avg_latency_ms,
        p50LatencyMs: r.p50_latency_ms,
        p95LatencyMs: r.p95_latency_ms,
      })),
      totalGroups: rows[0]?.total_groups ?? 0,
      totals: { requests: t.requests, okRequests: t.ok_requests, failedRequests: t.failed_requests, characters: t.characters, audioSeconds: t.audio_seconds },
    };
  }

  /** Usage per API key and tier over the range (key-less usage is left out), with per-tier totals. */
  async costByKeyAndTier(filter: CostFilter): Promise<CostResult> {
    const params = [filter.dayFrom, filter.dayTo, filter.keyId, filter.tier];
    const where = `key_id IS NOT NULL AND ${DAY_RANGE_SQL}
      AND ($3::text IS NULL OR key_id = $3::text) AND ($4::text IS NULL OR tier = $4::text)`;
    const rows = await this.db.query<CostSqlRow>(
      `SELECT u.key_id, k.name AS key_name, u.tier, u.requests, u.characters, u.audio_seconds, u.total_groups
       FROM (
         SELECT key_id, tier,
                COUNT(*)::int8 AS requests,
                COALESCE(SUM(characters) FILTER (WHERE status = 'ok'), 0)::int8 AS characters,
                COALESCE(SUM(audio_seconds) FILTER (WHERE status = 'ok'), 0)::float8 AS audio_seconds,
                COUNT(*) OVER ()::int8 AS total_groups
         FROM ${USAGE_WITH_JOB_AUDIO} WHERE ${where}
         GROUP BY key_id, tier
       ) u LEFT JOIN api_keys k ON k.key_id = u.key_id
       ORDER BY u.characters DESC, u.key_id, u.tier NULLS LAST
       LIMIT $5::integer`,
      [...params, filter.limit],
    );
    const totals = await this.db.query<{ tier: string | null; requests: number; characters: number; audio_seconds: number }>(
      `SELECT tier, COUNT(*)::int8 AS requests,
              COALESCE(SUM(characters) FILTER (WHERE status = 'ok'), 0)::int8 AS characters,
              COALESCE(SUM(audio_seconds) FILTER (WHERE status = 'ok'), 0)::float8 AS audio_seconds
       FROM ${USAGE_WITH_JOB_AUDIO} WHERE ${where}
       GROUP BY tier ORDER BY tier NULLS LAST`,
      params,
    );
    return {
      rows: rows.map((r) => ({ keyId: r.key_id, keyName: r.key_name, tier: r.tier, requests: r.requests, characters: r.characters, audioSeconds: r.audio_seconds })),
      totalGroups: rows[0]?.total_groups ?? 0,
      totalsByTier: totals.map((r) => ({ tier: r.tier, requests: r.requests, characters: r.characters, audioSeconds: r.audio_seconds })),
    };
  }
}
