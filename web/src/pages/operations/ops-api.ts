/**
 * The calls of the operations pages, all with the administrator key: the SLO dashboard and
 * alerts, usage and cost, system information and the cleanup.
 */
import { request } from '../../lib/api.js';
import type { Schema } from '../../lib/schema.js';

/** GET /api/slo/dashboard. */
export type SloDashboard = Schema<'SloDashboard'>;

/** One time bucket of the dashboard's series. */
export type SloSeriesPoint = Schema<'SloSeriesPoint'>;

/** GET /api/slo/alerts. */
export type SloAlerts = Schema<'SloAlerts'>;

/** GET /api/usage/summary. */
export type UsageSummary = Schema<'UsageSummary'>;

/** GET /api/usage/cost-dashboard. */
export type CostDashboard = Schema<'CostDashboard'>;

/** GET /api/system/info. */
export type SystemInfo = Schema<'SystemInfo'>;

/** GET /api/web/system/status. */
export type QueueStatus = Schema<'WebSystemStatus'>;

/** POST /api/system/cleanup/run. */
export type CleanupReport = Schema<'CleanupReport'>;

/** GET /api/system/cleanup/config. */
export type CleanupConfig = Schema<'CleanupConfig'>;

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
