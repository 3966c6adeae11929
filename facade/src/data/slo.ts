/**
 * SLI rows: one per request a facade answered. Written in batches (one statement per batch, the
 * rows travel as one JSON parameter), read back as window aggregates with percentiles for the SLO
 * dashboard (and per time bucket for its series) and as per-minute counts for burn-rate alerts,
 * deleted past the retention.
 */
import type { Database } from '@tts/common/data';

/** One request as an SLI. */
export interface SliRow {
  /** When the response ended. */
  readonly at: Date;
  /** The operation, e.g. "POST /api/tts" (method and OpenAPI path template). */
  readonly endpoint: string;
  /** HTTP status sent (499 when the client went away first). */
  readonly status: number;
  /** False when the request counts against availability (a server failure or overload). */
  readonly ok: boolean;
  readonly latencyMs: number;
  /** Catalogue code of an error answer, or null. */
  readonly errorCode: string | null;
}

/** Latency thresholds: per endpoint, and the one for every other endpoint. */
export interface LatencyThresholds {
  readonly byEndpoint: Readonly<Record<string, number>>;
  readonly defaultMs: number;
}

/** Aggregates of one endpoint (or of all, `endpoint` null) over a window. */
export interface SliWindowAggregate {
  /** null for the row over every endpoint. */
  readonly endpoint: string | null;
  readonly requests: number;
  /** Requests that count against availability. */
  readonly errors: number;
  /** Requests that did not fail (the latency SLI's population). */
  readonly served: number;
  /** Served requests slower than their endpoint's threshold. */
  readonly slow: number;
  /** Latency percentiles (ms) of the served requests; null when there were none. */
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
}

/** Aggregates of one time bucket (every endpoint in scope together), `age` buckets before the end. */
export interface SliBucketAggregate {
  /** 0 = the bucket that ends at the end instant, 1 = the one before, ... */
  readonly age: number;
  readonly requests: number;
  readonly errors: number;
  readonly served: number;
  readonly slow: number;
  /** p95 latency (ms) of the served requests; null when there were none. */
  readonly p95Ms: number | null;
}

/** Counts of one endpoint in one minute, `age` minutes before the evaluation instant. */
export interface SliMinuteCounts {
  readonly endpoint: string;
  /** 0 = the last minute before the instant, 1 = the one before, ... */
  readonly age: number;
  readonly requests: number;
  readonly errors: number;
  readonly served: number;
  readonly slow: number;
}

const thresholdsJson = (t: LatencyThresholds): string => JSON.stringify(t.byEndpoint);

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));

/** Storage of SLI rows. */
export class SloRepository {
  constructor(private readonly db: Database) {}

  /** Inserts `rows` in one statement. */
  async insertMany(rows: readonly SliRow[]): Promise<void> {
    if (rows.length === 0) return;
    const payload = JSON.stringify(
      rows.map((r) => ({ at: r.at.toISOString(), endpoint: r.endpoint, status: r.status, ok: r.ok, latency_ms: Math.max(0, r.latencyMs), error_code: r.errorCode })),
    );
    await this.db.query(
      `INSERT INTO slo_requests (at, endpoint, status, ok, latency_ms, error_code)
       SELECT at, endpoint, status, ok, latency_ms, error_code
       FROM jsonb_to_recordset($1::text::jsonb) AS r(at timestamptz, endpoint text, status integer, ok boolean, latency_ms double precision, error_code text)`,
      [payload],
    );
  }

  /**
   * Per-endpoint aggregates over (from, to], plus the row over every endpoint (`endpoint` null),
   * optionally for one endpoint only. Endpoints without requests are absent.
   */
  async windowAggregates(from: Date, to: Date, endpoint: string | null, thresholds: LatencyThresholds): Promise<SliWindowAggregate[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `WITH t AS (SELECT key AS endpoint, value::double precision AS threshold_ms FROM jsonb_each_text($4::text::jsonb))
       SELECT r.endpoint AS endpoint, GROUPING(r.endpoint) AS total,
              count(*)::integer AS requests,
              count(*) FILTER (WHERE NOT r.ok)::integer AS errors,
              count(*) FILTER (WHERE r.ok)::integer AS served,
              count(*) FILTER (WHERE r.ok AND r.latency_ms > COALESCE(t.threshold_ms, $5::double precision))::integer AS slow,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY r.latency_ms) FILTER (WHERE r.ok) AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY r.latency_ms) FILTER (WHERE r.ok) AS p95,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY r.latency_ms) FILTER (WHERE r.ok) AS p99
       FROM slo_requests r LEFT JOIN t ON t.endpoint = r.endpoint
       WHERE r.at > $1::timestamptz AND r.at <= $2::timestamptz AND ($3::text IS NULL OR r.endpoint = $3::text)
       GROUP BY GROUPING SETS ((r.endpoint), ())
       ORDER BY GROUPING(r.endpoint) DESC, r.endpoint`,
      [from, to, endpoint, thresholdsJson(thresholds), thresholds.defaultMs],
    );
    return rows.map((r) => ({
      endpoint: num(r['total']) === 1 ? null : String(r['endpoint']),
      requests: num(r['requests']),
      errors: num(r['errors']),
      served: num(r['served']),
      slow: num(r['slow']),
      p50Ms: numOrNull(r['p50']),
      p95Ms: numOrNull(r['p95']),
      p99Ms: numOrNull(r['p99']),
    }));
  }

  /**
   * Aggregates per bucket of `bucketMinutes` over the `buckets` buckets before `to` (bucket 0 is
   * (to - bucketMinutes, to]), every endpoint together or one endpoint. Grouped in the database;
   * empty buckets are absent.
   */
  async bucketAggregates(to: Date, bucketMinutes: number, buckets: number, endpoint: string | null, thresholds: LatencyThresholds): Promise<SliBucketAggregate[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `WITH t AS (SELECT key AS endpoint, value::double precision AS threshold_ms FROM jsonb_each_text($5::text::jsonb))
       SELECT floor(extract(epoch FROM ($1::timestamptz - r.at)) / ($2::integer * 60))::integer AS age,
              count(*)::integer AS requests,
              count(*) FILTER (WHERE NOT r.ok)::integer AS errors,
              count(*) FILTER (WHERE r.ok)::integer AS served,
              count(*) FILTER (WHERE r.ok AND r.latency_ms > COALESCE(t.threshold_ms, $6::double precision))::integer AS slow,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY r.latency_ms) FILTER (WHERE r.ok) AS p95
       FROM slo_requests r LEFT JOIN t ON t.endpoint = r.endpoint
       WHERE r.at > $1::timestamptz - ($2::integer * $3::integer * interval '1 minute') AND r.at <= $1::timestamptz
         AND ($4::text IS NULL OR r.endpoint = $4::text)
       GROUP BY 1
       ORDER BY 1`,
      [to, bucketMinutes, buckets, endpoint, thresholdsJson(thresholds), thresholds.defaultMs],
    );
    return rows.map((r) => ({
      age: num(r['age']),
      requests: num(r['requests']),
      errors: num(r['errors']),
      served: num(r['served']),
      slow: num(r['slow']),
      p95Ms: numOrNull(r['p95']),
    }));
  }

  /**
   * Counts per endpoint and minute over the `minutes` minutes before `at` (minute 0 ends at `at`),
   * optionally for one endpoint. Empty minutes are absent.
   */
  async minuteCounts(at: Date, minutes: number, endpoint: string | null, thresholds: LatencyThresholds): Promise<SliMinuteCounts[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `WITH t AS (SELECT key AS endpoint, value::double precision AS threshold_ms FROM jsonb_each_text($4::text::jsonb))
       SELECT r.endpoint AS endpoint,
              floor(extract(epoch FROM ($1::timestamptz - r.at)) / 60)::integer AS age,
              count(*)::integer AS requests,
              count(*) FILTER (WHERE NOT r.ok)::integer AS errors,
              count(*) FILTER (WHERE r.ok)::integer AS served,
              count(*) FILTER (WHERE r.ok AND r.latency_ms > COALESCE(t.threshold_ms, $5::double precision))::integer AS slow
       FROM slo_requests r LEFT JOIN t ON t.endpoint = r.endpoint
       WHERE r.at > $1::timestamptz - ($2::integer * interval '1 minute') AND r.at <= $1::timestamptz
         AND ($3::text IS NULL OR r.endpoint = $3::text)
       GROUP BY 1, 2`,
      [at, minutes, endpoint, thresholdsJson(thresholds), thresholds.defaultMs],
    );
    return rows.map((r) => ({
      endpoint: String(r['endpoint']),
      age: num(r['age']),
      requests: num(r['requests']),
      errors: num(r['errors']),
      served: num(r['served']),
      slow: num(r['slow']),
    }));
  }

  /** Deletes rows older than `before`, `batchSize` rows per statement; resolves to the rows deleted. */
  async deleteBefore(before: Date, batchSize = 10_000): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await this.db.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM slo_requests WHERE id IN (SELECT id FROM slo_requests WHERE at < $1::timestamptz LIMIT $2::integer) RETURNING 1
         ) SELECT count(*)::integer AS n FROM gone`,
        [before, batchSize],
      );
      const n = num(rows[0]?.n ?? 0);
      total += n;
      if (n < batchSize) return total;
    }
  }

  /**
   * Rows stored (the planner's estimate once the table was analysed, so this stays cheap on a large
   * table; an exact count before) and the oldest row's time.
   */
  async stats(): Promise<{ rows: number; oldest: Date | null }> {
    const est = await this.db.query<{ n: number }>("SELECT reltuples::bigint AS n FROM pg_class WHERE oid = to_regclass('slo_requests')");
    const estimate = num(est[0]?.n ?? -1);
    const rows = estimate >= 0 ? estimate : num((await this.db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM slo_requests'))[0]?.n ?? 0);
    const oldest = await this.db.query<{ at: Date | null }>('SELECT min(at) AS at FROM slo_requests');
    return { rows, oldest: oldest[0]?.at ?? null };
  }
}
