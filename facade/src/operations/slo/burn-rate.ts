/**
 * Burn-rate arithmetic and multi-window alert evaluation over per-minute SLI counts. Pure: the SLO
 * service reads the counts, this decides. An alert rule is evaluated at every minute of the history
 * window (each instant sees its own long and short windows), which gives each alert the time it
 * started firing (`since`) and, once it stopped, the time it cleared (`until`).
 */
import { LATENCY_QUANTILE, type BurnRateRule, type Objective } from './objectives.js';

/** The two SLIs. */
export type SliKind = 'availability' | 'latency';

/** Counts of a window. */
export interface WindowCounts {
  readonly requests: number;
  readonly errors: number;
  /** Requests that did not fail. */
  readonly served: number;
  /** Served requests slower than the latency threshold. */
  readonly slow: number;
}

/** Per-minute counts of one scope; index = minutes before the evaluation instant. */
export class MinuteSeries {
  private readonly prefix: { requests: Float64Array; errors: Float64Array; served: Float64Array; slow: Float64Array };

  constructor(readonly length: number, minutes: Iterable<{ age: number } & WindowCounts>) {
    const raw = { requests: new Float64Array(length), errors: new Float64Array(length), served: new Float64Array(length), slow: new Float64Array(length) };
    for (const m of minutes) {
      if (m.age < 0 || m.age >= length) continue;
      raw.requests[m.age]! += m.requests;
      raw.errors[m.age]! += m.errors;
      raw.served[m.age]! += m.served;
      raw.slow[m.age]! += m.slow;
    }
    const cumulative = (a: Float64Array): Float64Array => {
      const out = new Float64Array(a.length + 1);
      for (let i = 0; i < a.length; i++) out[i + 1] = out[i]! + a[i]!;
      return out;
    };
    this.prefix = { requests: cumulative(raw.requests), errors: cumulative(raw.errors), served: cumulative(raw.served), slow: cumulative(raw.slow) };
  }

  /** Counts of the `minutes` minutes before the instant `at` minutes ago. */
  window(at: number, minutes: number): WindowCounts {
    const from = Math.min(this.length, Math.max(0, at));
    const to = Math.min(this.length, Math.max(0, at + minutes));
    const sum = (p: Float64Array): number => p[to]! - p[from]!;
    return { requests: sum(this.prefix.requests), errors: sum(this.prefix.errors), served: sum(this.prefix.served), slow: sum(this.prefix.slow) };
  }
}

/** The SLI's error budget: the fraction of its population allowed to be bad. */
export function errorBudget(kind: SliKind, objective: Objective): number {
  return kind === 'availability' ? 1 - objective.availability : 1 - LATENCY_QUANTILE;
}

/** Bad events and population of an SLI in a window. */
export function badAndTotal(kind: SliKind, c: WindowCounts): { bad: number; total: number } {
  return kind === 'availability' ? { bad: c.errors, total: c.requests } : { bad: c.slow, total: c.served };
}

/** How many times faster than sustainable the window spends the budget (0 without traffic). */
export function burnRate(kind: SliKind, c: WindowCounts, objective: Objective): number {
  const { bad, total } = badAndTotal(kind, c);
  return total === 0 ? 0 : bad / total / errorBudget(kind, objective);
}

/** One stretch of time during which an alert rule held. */
export interface AlertEpisode {
  readonly sli: SliKind;
  readonly rule: BurnRateRule;
  /** Minutes ago it started (>= untilAge). */
  readonly sinceAge: number;
  /** True when it already held at the start of the history window (it may have started earlier). */
  readonly sinceTruncated: boolean;
  /** Minutes ago it stopped holding; null while it still holds. */
  readonly untilAge: number | null;
  /** Figures now (firing) or at the last minute it held (resolved). */
  readonly longBurnRate: number;
  readonly shortBurnRate: number;
  readonly longWindow: WindowCounts;
  readonly shortWindow: WindowCounts;
}

/**
 * Every episode of `rules` on both SLIs over the last `historyMinutes` minutes (instants
 * historyMinutes .. 0 minutes ago). A rule holds when both windows burn faster than its rate and
 * the long window has at least `minRequests` requests of the SLI's population.
 */
export function evaluateAlerts(series: MinuteSeries, objective: Objective, rules: readonly BurnRateRule[], historyMinutes: number, minRequests: number): AlertEpisode[] {
  const out: AlertEpisode[] = [];
  for (const sli of ['availability', 'latency'] as const) {
    for (const rule of rules) {
      let start: number | null = null;
      let last: Omit<AlertEpisode, 'sli' | 'rule' | 'sinceAge' | 'sinceTruncated' | 'untilAge'> | null = null;
      for (let k = historyMinutes; k >= 0; k--) {
        const longWindow = series.window(k, rule.longWindowMinutes);
        const shortWindow = series.window(k, rule.shortWindowMinutes);
        const longBurnRate = burnRate(sli, longWindow, objective);
        const shortBurnRate = burnRate(sli, shortWindow, objective);
        const holds = badAndTotal(sli, longWindow).total >= minRequests && longBurnRate > rule.burnRate && shortBurnRate > rule.burnRate;
        if (holds) {
          start ??= k;
          last = { longBurnRate, shortBurnRate, longWindow, shortWindow };
        } else if (start !== null && last !== null) {
          out.push({ sli, rule, sinceAge: start, sinceTruncated: start === historyMinutes, untilAge: k, ...last });
          start = null;
        }
      }
      if (start !== null && last !== null) out.push({ sli, rule, sinceAge: start, sinceTruncated: start === historyMinutes, untilAge: null, ...last });
    }
  }
  return out;
}
