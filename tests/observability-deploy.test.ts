/**
 * The deployment's observability files agree with the code: the PrometheusRule has the SLO
 * engine's burn-rate table (severities, windows, factors, budgets, minimum traffic, latency
 * thresholds), and the PrometheusRule and the Grafana dashboard only query metrics the processes
 * export, under their exported names.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { BURN_RATE_RULES, DEFAULT_OBJECTIVES, LATENCY_QUANTILE } from '@tts/facade/testing';
import { DURATION_BUCKETS_SEC, PLATFORM_METRICS } from '@tts/common/telemetry';

interface Rule {
  readonly record?: string;
  readonly alert?: string;
  readonly expr: string;
  readonly labels?: Record<string, string>;
}

const rules = parse(readFileSync('charts/tts-platform/files/prometheus-rules.yaml', 'utf8')) as {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { groups: { name: string; rules: Rule[] }[] };
};
const dashboard = JSON.parse(readFileSync('charts/tts-platform/files/grafana-dashboard.json', 'utf8')) as {
  uid: string;
  panels: { id: number; type: string; title: string; gridPos: object; targets?: { expr: string; refId: string }[] }[];
};
const allRules = rules.spec.groups.flatMap((g) => g.rules);
const records = new Map(allRules.filter((r) => r.record).map((r) => [r.record!, r.expr]));
/** The SLO burn-rate alerts (other alerts, e.g. on metering, carry no `slo` label). */
const alerts = allRules.filter((r) => r.alert && r.labels?.['slo'] !== undefined);

/** PromQL duration of a window in minutes (5m, 1h, 1d, ...). */
function duration(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

/** Series names the processes export (histograms as their _bucket/_count/_sum series). */
const EXPORTED = new Set(
  Object.values(PLATFORM_METRICS).flatMap((m) => [m.prometheus, `${m.prometheus}_bucket`, `${m.prometheus}_count`, `${m.prometheus}_sum`]),
);

/** Metric names a PromQL expression selects (`name{...}`), recording rules it reads (`tts:...`). */
function referenced(expr: string): { series: string[]; recordings: string[] } {
  const withoutStrings = expr.replace(/"[^"]*"/g, '""');
  const series = [...withoutStrings.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\{/g)].map((m) => m[1]!).filter((n) => !['by', 'without'].includes(n));
  const recordings = [...withoutStrings.matchAll(/\b(tts:[a-z0-9_:]+)/g)].map((m) => m[1]!);
  return { series, recordings };
}

const SLIS = [
  { sli: 'availability', recording: 'tts:slo_availability_errors:ratio_rate', guard: 'tts:slo_requests:increase', budget: 1 - DEFAULT_OBJECTIVES.default.availability },
  { sli: 'latency', recording: 'tts:slo_latency_slow:ratio_rate', guard: 'tts:slo_served:increase', budget: 1 - LATENCY_QUANTILE },
] as const;

describe('deployment observability files', () => {
  test('the PrometheusRule has the burn-rate table of the SLO engine, for both SLOs', () => {
    assert.equal(rules.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(rules.kind, 'PrometheusRule');
    assert.equal(alerts.length, SLIS.length * BURN_RATE_RULES.length);
    for (const { sli, recording, guard, budget } of SLIS) {
      for (const rule of BURN_RATE_RULES) {
        const matching = alerts.filter((a) => a.labels?.['slo'] === sli && a.labels['rule'] === rule.name);
        assert.equal(matching.length, 1, `${sli} ${rule.name}`);
        const a = matching[0]!;
        const long = duration(rule.longWindowMinutes);
        const short = duration(rule.shortWindowMinutes);
        assert.deepEqual(
          [a.labels!['severity'], a.labels!['long_window'], a.labels!['short_window'], Number(a.labels!['burn_rate'])],
          [rule.severity, long, short, rule.burnRate],
          a.alert,
        );
        const threshold = (expr: string, window: string): number => {
          const m = new RegExp(`${recording.replace(/[:]/g, ':')}${window}\\s*>\\s*\\(([0-9.]+)\\s*\\*\\s*([0-9.]+)\\)`).exec(expr);
          assert.ok(m, `${a.alert}: ${recording}${window} > (factor * budget)`);
          return Number(m[1]) * Number(m[2]);
        };
        assert.ok(Math.abs(threshold(a.expr, long) - rule.burnRate * budget) < 1e-12, `${a.alert} long window threshold`);
        assert.ok(Math.abs(threshold(a.expr, short) - rule.burnRate * budget) < 1e-12, `${a.alert} short window threshold`);
        assert.match(a.expr, new RegExp(`${guard}${long}\\s*>=\\s*${DEFAULT_OBJECTIVES.minRequests}\\b`), `${a.alert} minimum-traffic guard`);
      }
    }
  });

  test('every recording rule an alert reads exists and measures the window its name says', () => {
    for (const a of alerts) for (const r of referenced(a.expr).recordings) assert.ok(records.has(r), `${a.alert} reads ${r}`);
    for (const [name, expr] of records) {
      const window = /(\d+[mhd])$/.exec(name)![1]!;
      const ranges = [...expr.matchAll(/\[(\d+[mhd])\]/g)].map((m) => m[1]);
      assert.ok(ranges.length > 0 && ranges.every((r) => r === window), `${name}: ranges ${ranges.join(',')}`);
    }
  });

  test('the latency rules use the default thresholds of the objectives, which are histogram bucket bounds', () => {
    const synthesis = Object.entries(DEFAULT_OBJECTIVES.endpoints).map(([endpoint, o]) => ({ route: endpoint.split(' ')[1]!, seconds: o.latencyP95Ms / 1000 }));
    const defaultSeconds = DEFAULT_OBJECTIVES.default.latencyP95Ms / 1000;
    for (const s of [...synthesis.map((x) => x.seconds), defaultSeconds]) assert.ok(DURATION_BUCKETS_SEC.includes(s), `${s} s is a bucket bound`);
    const slow = records.get('tts:slo_latency_slow:ratio_rate1h')!;
    for (const { route, seconds } of synthesis) {
      assert.ok(slow.includes(route), route);
      assert.ok(slow.includes(`le=~"${seconds}|${seconds}.0"`), `${route} at ${seconds} s`);
    }
    assert.ok(slow.includes(`le=~"${defaultSeconds}|${defaultSeconds}.0"`), 'default threshold');
  });

  test('rules and dashboard query only exported metrics and defined recording rules', () => {
    const exprs = [...allRules.map((r) => r.expr), ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))];
    for (const expr of exprs) {
      const { series, recordings } = referenced(expr);
      for (const s of series) assert.ok(EXPORTED.has(s) || s === 'ALERTS', `unknown metric ${s} in ${expr}`);
      for (const r of recordings) assert.ok(records.has(r), `unknown recording rule ${r}`);
    }
  });

  test('the Grafana dashboard shows every platform metric and the SLO burn rates', () => {
    const ids = dashboard.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).join('\n');
    for (const m of Object.values(PLATFORM_METRICS)) assert.ok(exprs.includes(m.prometheus), `${m.prometheus} on the dashboard`);
    for (const { recording } of SLIS) assert.ok(exprs.includes(recording), recording);
    for (const p of dashboard.panels) {
      assert.ok(p.gridPos && p.title, `panel ${p.id}`);
      if (p.type !== 'row') assert.ok((p.targets ?? []).length > 0 && p.targets!.every((t) => t.expr.trim() !== '' && t.refId !== ''), p.title);
    }
  });
});
