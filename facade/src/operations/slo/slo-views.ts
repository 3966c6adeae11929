/**
 * JSON shapes of the SLO dashboard and alerts (documented as SloDashboard and SloAlerts in the
 * OpenAPI document).
 */
import { badAndTotal } from './burn-rate.js';
import { BURN_RATE_RULES, type Objective } from './objectives.js';
import type { SloAlert, SloAlerts, SloDashboard, SloFigures, SloSeries } from './service.js';

const ms = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

function objectiveView(o: Objective): Record<string, number> {
  return { availability: o.availability, latency_p95_ms: o.latencyP95Ms };
}

function figuresView(f: SloFigures): Record<string, unknown> {
  return {
    endpoint: f.endpoint,
    requests: f.requests,
    errors: f.errors,
    availability: f.availability,
    p50_ms: ms(f.p50Ms),
    p95_ms: ms(f.p95Ms),
    p99_ms: ms(f.p99Ms),
    error_budget_remaining: f.errorBudgetRemaining,
    burn_rate: f.burnRate,
    objective: objectiveView(f.objective),
    latency: {
      slow: f.latency.slow,
      served: f.latency.served,
      within_threshold: f.latency.withinThreshold,
      error_budget_remaining: f.latency.errorBudgetRemaining,
      burn_rate: f.latency.burnRate,
    },
  };
}

function seriesView(s: SloSeries): Record<string, unknown> {
  return {
    bucket_minutes: s.bucketMinutes,
    points: s.points.map((p) => ({
      from: p.from.toISOString(),
      to: p.to.toISOString(),
      requests: p.requests,
      errors: p.errors,
      availability: p.availability,
      burn_rate: p.burnRate,
      p95_ms: ms(p.p95Ms),
      latency: { served: p.served, slow: p.slow, within_threshold: p.withinThreshold, burn_rate: p.latencyBurnRate },
    })),
  };
}

/** GET /api/slo/dashboard body. */
export function dashboardView(d: SloDashboard): Record<string, unknown> {
  return {
    window_minutes: d.windowMinutes,
    from: d.from.toISOString(),
    to: d.to.toISOString(),
    endpoint: d.endpoint,
    overall: figuresView(d.overall),
    endpoints: d.endpoints.map(figuresView),
    series: seriesView(d.series),
  };
}

function alertView(a: SloAlert): Record<string, unknown> {
  const e = a.episode;
  const long = badAndTotal(a.sli, e.longWindow);
  const short = badAndTotal(a.sli, e.shortWindow);
  return {
    name: `${a.sli}:${a.rule.name}:${a.endpoint ?? '*'}`,
    sli: a.sli,
    rule: a.rule.name,
    severity: a.rule.severity,
    endpoint: a.endpoint,
    state: a.state,
    since: a.since.toISOString(),
    since_truncated: a.sinceTruncated,
    until: a.until === null ? null : a.until.toISOString(),
    windows: { long_minutes: a.rule.longWindowMinutes, short_minutes: a.rule.shortWindowMinutes },
    burn_rate_threshold: a.rule.burnRate,
    burn_rates: { long: e.longBurnRate, short: e.shortBurnRate },
    events: { long: long.total, short: short.total },
    bad_events: { long: long.bad, short: short.bad },
    objective: objectiveView(a.objective),
  };
}

/** GET /api/slo/alerts body. */
export function alertsView(a: SloAlerts): Record<string, unknown> {
  return {
    at: a.at.toISOString(),
    window_minutes: a.windowMinutes,
    endpoint: a.endpoint,
    min_requests: a.minRequests,
    rules: BURN_RATE_RULES.map((r) => ({
      name: r.name,
      severity: r.severity,
      long_window_minutes: r.longWindowMinutes,
      short_window_minutes: r.shortWindowMinutes,
      burn_rate: r.burnRate,
    })),
    firing: a.alerts.filter((x) => x.state === 'firing').length,
    alerts: a.alerts.map(alertView),
  };
}
