/**
 * The calls of the operations pages, all with the administrator key: the SLO dashboard and
 * alerts, usage and cost, system information and the cleanup. Types hold the members the pages
 * read (the OpenAPI document has the full schemas).
 */
import { request } from '../../lib/api.js';

/** The objective of a scope (SloObjective). */
export interface SloObjective {
  readonly availability: number;
  readonly latency_p95_ms: number;
}

/** SLO figures of a scope over the window (SloFigures). */
export interface SloFigures {
  readonly endpoint: string | null;
  readonly requests: number;
  readonly errors: number;
  readonly availability: number | null;
  readonly p50_ms: number | null;
  readonly p95_ms: number | null;
  readonly p99_ms: number | null;
  readonly error_budget_remaining: number;
  readonly burn_rate: number;
  readonly objective: SloObjective;
  readonly latency: { readonly slow: number; readonly served: number; readonly within_threshold: number | null; readonly error_budget_remaining: number; readonly burn_rate: number };
}

/** One time bucket of the dashboard's series (SloSeriesPoint). */
export interface SloSeriesPoint {
  readonly from: string;
  readonly to: string;
  readonly requests: number;
  readonly errors: number;
  readonly availability: number | null;
  readonly burn_rate: number | null;
  readonly p95_ms: number | null;
  readonly latency: { readonly served: number; readonly slow: number; readonly within_threshold: number | null; readonly burn_rate: number | null };
}

/** GET /api/slo/dashboard. */
export interface SloDashboard {
  readonly window_minutes: number;
  readonly from: string;
  readonly to: string;
  readonly endpoint: string | null;
  readonly overall: SloFigures;
  readonly endpoints: readonly SloFigures[];
  readonly series: { readonly bucket_minutes: number; readonly points: readonly SloSeriesPoint[] };
}

/** An alert of GET /api/slo/alerts. */
export interface SloAlert {
  readonly name: string;
  readonly sli: 'availability' | 'latency';
  readonly rule: string;
  readonly severity: 'page' | 'ticket';
  readonly endpoint: string | null;
  readonly state: 'firing' | 'resolved';
  readonly since: string;
  readonly until: string | null;
  readonly windows: { readonly long_minutes: number; readonly short_minutes: number };
  readonly burn_rate_threshold: number;
  readonly burn_rates: { readonly long: number; readonly short: number };
}

/** GET /api/slo/alerts. */
export interface SloAlerts {
  readonly at: string;
  readonly firing: number;
  readonly min_requests: number;
  readonly alerts: readonly SloAlert[];
}

/** GET /api/usage/summary (the members the page reads). */
export interface UsageSummary {
  readonly totals: { readonly requests?: number; readonly ok_requests?: number; readonly failed_requests?: number; readonly characters?: number; readonly audio_seconds?: number };
  readonly total_groups: number;
  readonly rows: readonly {
    readonly day: string;
    readonly key_id: string | null;
    readonly endpoint: string;
    readonly requests: number;
    readonly ok_requests?: number;
    readonly failed_requests?: number;
    readonly characters: number;
    readonly audio_seconds: number;
    readonly p95_latency_ms?: number | null;
  }[];
}

/** A row of the cost dashboard: one key. */
export interface CostRow {
  readonly key_id: string;
  readonly key_name?: string | null;
  readonly tier: string | null;
  readonly requests: number;
  readonly characters: number;
  readonly audio_minutes: number;
  readonly cost_usd: number;
  readonly quota_stage: string | null;
}

/** GET /api/usage/cost-dashboard. */
export interface CostDashboard {
  readonly totals: { readonly requests?: number; readonly characters?: number; readonly audio_minutes?: number; readonly cost_usd?: number };
  readonly by_tier: readonly { readonly tier?: string | null; readonly requests?: number; readonly characters?: number; readonly audio_minutes?: number; readonly cost_usd?: number }[];
  readonly rows: readonly CostRow[];
  readonly total_groups: number;
}

/** An inference node of GET /api/system/info. */
export interface NodeInfo {
  readonly node_id: string;
  readonly address: string;
  readonly state: string;
  readonly ready: boolean;
  readonly version: string;
  readonly uptime_sec: number | null;
  readonly capacity: number;
  readonly in_flight: number;
  readonly queue_depth: number;
  readonly real_time_factor: number;
  readonly engines: readonly string[];
}

/** GET /api/system/info. */
export interface SystemInfo {
  readonly service: string;
  readonly version: string;
  readonly started_at: string;
  readonly uptime_sec: number;
  readonly process: { readonly pid: number; readonly node: string; readonly platform: string; readonly arch: string; readonly cpus: number; readonly load_average: readonly number[]; readonly memory_total_bytes: number; readonly memory_free_bytes: number; readonly rss_bytes: number; readonly heap_used_bytes: number };
  readonly cluster_error: string | null;
  readonly nodes: readonly NodeInfo[];
  readonly engines: readonly { readonly name: string; readonly ready: boolean; readonly nodes_ready: number; readonly voice_count: number; readonly devices: readonly string[] }[];
  readonly storage: {
    readonly database: { readonly kind: string; readonly schema: string; readonly size_bytes: number | null };
    readonly kv: { readonly kind: string };
    readonly data_dir: { readonly path: string; readonly artifacts: { readonly files: number; readonly bytes: number } | null; readonly disk: { readonly total_bytes: number; readonly free_bytes: number } | null };
    readonly slo_requests: { readonly rows: number; readonly oldest: string | null } | null;
  };
  readonly telemetry: { readonly enabled: boolean; readonly service_name: string | null; readonly metrics_port: number | null; readonly trace_exporters: readonly string[] };
}

/** GET /api/web/system/status. */
export interface QueueStatus {
  readonly status: 'ok' | 'degraded' | 'unavailable';
  readonly queue_depth: number;
  readonly running: number;
  readonly nodes_ready: number;
  readonly nodes_total?: number;
  readonly capacity?: number;
  readonly eta_seconds?: number | null;
}

/** One kind of data a cleanup run handled (CleanupReport items). */
export interface CleanupReportItem {
  readonly name: string;
  readonly status: 'ok' | 'failed' | 'disabled' | 'not_configured' | 'kept' | 'not_stored';
  readonly removed: number;
  readonly bytes_freed: number;
  readonly note: string;
}

/** POST /api/system/cleanup/run (CleanupReport). */
export interface CleanupReport {
  readonly trigger: 'manual' | 'schedule';
  readonly started_at: string;
  readonly duration_ms: number;
  readonly removed_total: number;
  readonly items: readonly CleanupReportItem[];
}

/** One kind of stored data and its retention (CleanupItem). */
export interface CleanupItem {
  readonly name: string;
  /** Deleted by the cleanup once older than retention_seconds. */
  readonly managed: boolean;
  readonly retention_seconds: number | null;
  readonly location: string | null;
  readonly note: string;
}

/** GET /api/system/cleanup/config. */
export interface CleanupConfig {
  readonly interval_minutes: number;
  readonly next_run_at: string | null;
  readonly last_run: CleanupReport | null;
  readonly items: readonly CleanupItem[];
}

const get = async <T>(path: string, signal?: AbortSignal): Promise<T> => (await request<T>('GET', path, { auth: 'admin', signal })).body;

/**
 * Query string of the defined values, each encoded with encodeURIComponent (a space as %20: the
 * API's validator refuses the "+" of URLSearchParams and reserved characters such as "/").
 */
function query(values: Record<string, string | number | undefined>): string {
  const parts = Object.entries(values)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** GET /api/slo/dashboard over the last `windowMinutes`, for one endpoint or ('') every one; with each endpoint's figures when `withEndpoints`. */
export const sloDashboard = (windowMinutes: number, endpoint: string, withEndpoints: boolean, signal?: AbortSignal): Promise<SloDashboard> =>
  get(`/api/slo/dashboard${query({ window_minutes: windowMinutes, endpoint, include_endpoints: String(withEndpoints) })}`, signal);

/** GET /api/slo/alerts (firing now, and resolved within the last `windowMinutes`), for one endpoint or ('') every scope. */
export const sloAlerts = (windowMinutes: number, endpoint: string, signal?: AbortSignal): Promise<SloAlerts> => get(`/api/slo/alerts${query({ window_minutes: windowMinutes, endpoint })}`, signal);

/** GET /api/usage/summary for a day range (YYYY-MM-DD, both included). */
export const usageSummary = (dayFrom: string, dayTo: string, signal?: AbortSignal): Promise<UsageSummary> => get(`/api/usage/summary${query({ day_from: dayFrom, day_to: dayTo, limit: 5000 })}`, signal);

/** GET /api/usage/cost-dashboard for a day range. */
export const costDashboard = (dayFrom: string, dayTo: string, signal?: AbortSignal): Promise<CostDashboard> => get(`/api/usage/cost-dashboard${query({ day_from: dayFrom, day_to: dayTo, limit: 5000 })}`, signal);

/** GET /api/system/info. */
export const systemInfo = (signal?: AbortSignal): Promise<SystemInfo> => get('/api/system/info', signal);

/** GET /api/web/system/status (the queue; public, sent without a credential). */
export const queueStatus = async (signal?: AbortSignal): Promise<QueueStatus> => (await request<QueueStatus>('GET', '/api/web/system/status', { signal })).body;

/** GET /api/system/cleanup/config. */
export const cleanupConfig = (signal?: AbortSignal): Promise<CleanupConfig> => get('/api/system/cleanup/config', signal);

/** POST /api/system/cleanup/run. */
export const runCleanup = async (): Promise<CleanupReport> => (await request<CleanupReport>('POST', '/api/system/cleanup/run', { auth: 'admin' })).body;
