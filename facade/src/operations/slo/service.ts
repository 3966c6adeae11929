/**
 * The SLO engine: records one SLI per answered request (through the batching recorder) and
 * computes, from the shared SLI table, the dashboard (requests, errors, availability, latency
 * percentiles, error budget and burn rate over a window, overall and per endpoint, and per time
 * bucket over the window) and the multi-window burn-rate alerts. Every replica reads the same
 * rows, so all agree.
 */
import { type Database } from '@tts/common/data';
import { SloRepository, type SliBucketAggregate, type SliRow, type SliWindowAggregate } from '../../data/index.js';
import type { Logger } from '@tts/common';
import { burnRate, evaluateAlerts, MinuteSeries, type AlertEpisode, type SliKind } from './burn-rate.js';
import { BURN_RATE_RULES, LATENCY_QUANTILE, latencyThresholds, LONGEST_ALERT_WINDOW_MINUTES, objectiveFor, type BurnRateRule, type Objective, type SloObjectives } from './objectives.js';
import { createSliRecorder, type SliRecorderOptions } from './recorder.js';
import type { BatchWriter } from '../../data/batch-writer.js';

/** One answered request. */
export interface SliInput {
  readonly endpoint: string;
  readonly status: number;
  readonly ok: boolean;
  readonly latencyMs: number;
  readonly errorCode: string | null;
}

/** SLO figures of one scope over a window. */
export interface SloFigures {
  /** null: every endpoint together. */
  readonly endpoint: string | null;
  readonly objective: Objective;
  readonly requests: number;
  readonly errors: number;
  /** Fraction of requests that did not fail; null without requests. */
  readonly availability: number | null;
  /** Latency percentiles of the requests that did not fail, ms; null without any. */
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
  /** Availability burn rate over the window (1 = spending the budget exactly at the sustainable pace). */
  readonly burnRate: number;
  /** Fraction of the window's availability error budget left (1 - burn rate; negative when overspent). */
  readonly errorBudgetRemaining: number;
  readonly latency: {
    /** Requests (not failed) slower than the threshold (each endpoint's own in the overall figures). */
    readonly slow: number;
    readonly served: number;
    /** Fraction of served requests within the threshold; null without any. */
    readonly withinThreshold: number | null;
    readonly burnRate: number;
    readonly errorBudgetRemaining: number;
  };
}

/** The figures of one time bucket of the dashboard's series. */
export interface SloSeriesPoint {
  /** Start of the bucket (exclusive). */
  readonly from: Date;
  /** End of the bucket (inclusive). */
  readonly to: Date;
  readonly requests: number;
  readonly errors: number;
  /** Fraction of requests that did not fail; null for a bucket without requests. */
  readonly availability: number | null;
  /** Availability burn rate of the bucket; null without requests. */
  readonly burnRate: number | null;
  /** p95 latency of the served requests, ms; null without any. */
  readonly p95Ms: number | null;
  readonly served: number;
  readonly slow: number;
  /** Fraction of served requests within the latency threshold; null without any. */
  readonly withinThreshold: number | null;
  /** Latency burn rate of the bucket; null without served requests. */
  readonly latencyBurnRate: number | null;
}

/** The dashboard's window cut in equal buckets, oldest first. */
export interface SloSeries {
  readonly bucketMinutes: number;
  readonly points: readonly SloSeriesPoint[];
}

/** The dashboard of a window. */
export interface SloDashboard {
  readonly from: Date;
  readonly to: Date;
  readonly windowMinutes: number;
  readonly endpoint: string | null;
  readonly overall: SloFigures;
  /** Per endpoint with traffic in the window (empty unless asked for). */
  readonly endpoints: readonly SloFigures[];
  /** The scope's figures per time bucket over the window. */
  readonly series: SloSeries;
}

/** One alert: a rule that holds now (firing) or held during the history window (resolved). */
export interface SloAlert {
  readonly sli: SliKind;
  readonly rule: BurnRateRule;
  /** null: every endpoint together. */
  readonly endpoint: string | null;
  readonly objective: Objective;
  readonly state: 'firing' | 'resolved';
  readonly since: Date;
  readonly sinceTruncated: boolean;
  readonly until: Date | null;
  readonly episode: AlertEpisode;
}

/** Alerts at an instant. */
export interface SloAlerts {
  readonly at: Date;
  readonly windowMinutes: number;
  readonly endpoint: string | null;
  readonly minRequests: number;
  readonly alerts: readonly SloAlert[];
}

/** Options of the SLO service. */
export interface SloServiceOptions {
  readonly database: Database;
  readonly objectives: SloObjectives;
  readonly logger: Logger;
  readonly recorder?: SliRecorderOptions;
  /** Current time. @default () => new Date() */
  readonly clock?: () => Date;
}

const MINUTE_MS = 60_000;

/** Bucket sizes of the series, minutes; the smallest that cuts the window in at most MAX_BUCKETS. */
const BUCKET_MINUTES = [1, 5, 15, 30, 60, 180, 360] as const;
/** Most buckets in a series. */
const MAX_BUCKETS = 300;

/** The bucket size of the series over a window of `windowMinutes`: 1 min up to 5 h, 5 min up to a day, ... */
export function seriesBucketMinutes(windowMinutes: number): number {
  // The largest size covers the longest window (7 days in 28 buckets).
  return BUCKET_MINUTES.find((m) => windowMinutes / m <= MAX_BUCKETS) ?? 360;
}

/** Records SLIs and computes SLO figures and alerts. */
export class SloService {
  /** The time used for recording and for windows (replaceable: tests move it forward). */
  clock: () => Date;
  readonly objectives: SloObjectives;
  readonly repository: SloRepository;
  private readonly recorder: BatchWriter<SliRow>;

  constructor(options: SloServiceOptions) {
    this.objectives = options.objectives;
    this.repository = new SloRepository(options.database);
    this.recorder = createSliRecorder(this.repository, options.logger, options.recorder);
    this.clock = options.clock ?? (() => new Date());
  }

  /** Records one answered request (written in the background, in batches). */
  record(input: SliInput): void {
    this.recorder.record({ at: this.clock(), ...input });
  }

  /** SLI rows waiting to be written, and dropped (storage unreachable with the buffer full). */
  backlog(): { buffered: number; dropped: number } {
    return this.recorder.backlog();
  }

  /** Writes every buffered SLI and waits for the writes (shutdown; tests before reading). */
  async drain(): Promise<void> {
    await this.recorder.drain();
  }

  /** Dashboard of the `windowMinutes` before now, for one endpoint or all. */
  async dashboard(windowMinutes: number, endpoint: string | null, includeEndpoints: boolean): Promise<SloDashboard> {
    const to = this.clock();
    const from = new Date(to.getTime() - windowMinutes * MINUTE_MS);
    const thresholds = latencyThresholds(this.objectives);
    const bucketMinutes = seriesBucketMinutes(windowMinutes);
    const buckets = Math.ceil(windowMinutes / bucketMinutes);
    const [rows, bucketRows] = await Promise.all([
      this.repository.windowAggregates(from, to, endpoint, thresholds),
      this.repository.bucketAggregates(to, bucketMinutes, buckets, endpoint, thresholds),
    ]);
    const total = rows.find((r) => r.endpoint === null);
    const overall = this.figures(total ?? emptyAggregate(), endpoint);
    const endpoints = includeEndpoints ? rows.filter((r) => r.endpoint !== null).map((r) => this.figures(r, r.endpoint)) : [];
    const series = { bucketMinutes, points: seriesPoints(to, bucketMinutes, buckets, bucketRows, objectiveFor(this.objectives, endpoint)) };
    return { from, to, windowMinutes, endpoint, overall, endpoints, series };
  }

  /** Alerts firing now, and those that fired and cleared within the last `windowMinutes`. */
  async alerts(windowMinutes: number, endpoint: string | null): Promise<SloAlerts> {
    const at = this.clock();
    const span = windowMinutes + LONGEST_ALERT_WINDOW_MINUTES;
    const minutes = await this.repository.minuteCounts(at, span, endpoint, latencyThresholds(this.objectives));
    const byEndpoint = new Map<string, typeof minutes>();
    for (const m of minutes) {
      let list = byEndpoint.get(m.endpoint);
      if (list === undefined) byEndpoint.set(m.endpoint, (list = []));
      list.push(m);
    }
    // The overall scope only when no endpoint was asked for (it would repeat the endpoint's).
    const scopes: [string | null, typeof minutes][] = [...[...byEndpoint.entries()].sort(([a], [b]) => a.localeCompare(b))];
    if (endpoint === null) scopes.unshift([null, minutes]);
    const alerts: SloAlert[] = [];
    for (const [scope, counts] of scopes) {
      const objective = objectiveFor(this.objectives, scope);
      for (const episode of evaluateAlerts(new MinuteSeries(span, counts), objective, BURN_RATE_RULES, windowMinutes, this.objectives.minRequests)) {
        alerts.push({
          sli: episode.sli,
          rule: episode.rule,
          endpoint: scope,
          objective,
          state: episode.untilAge === null ? 'firing' : 'resolved',
          since: new Date(at.getTime() - episode.sinceAge * MINUTE_MS),
          sinceTruncated: episode.sinceTruncated,
          until: episode.untilAge === null ? null : new Date(at.getTime() - episode.untilAge * MINUTE_MS),
          episode,
        });
      }
    }
    const severity = (a: SloAlert): number => (a.rule.severity === 'page' ? 0 : 1);
    alerts.sort((a, b) => (a.state === b.state ? 0 : a.state === 'firing' ? -1 : 1) || severity(a) - severity(b) || b.since.getTime() - a.since.getTime());
    return { at, windowMinutes, endpoint, minRequests: this.objectives.minRequests, alerts };
  }

  private figures(a: SliWindowAggregate, endpoint: string | null): SloFigures {
    const objective = objectiveFor(this.objectives, endpoint);
    const availabilityBudget = 1 - objective.availability;
    const latencyBudget = 1 - LATENCY_QUANTILE;
    const burnRate = a.requests === 0 ? 0 : a.errors / a.requests / availabilityBudget;
    const latencyBurn = a.served === 0 ? 0 : a.slow / a.served / latencyBudget;
    return {
      endpoint,
      objective,
      requests: a.requests,
      errors: a.errors,
      availability: a.requests === 0 ? null : (a.requests - a.errors) / a.requests,
      p50Ms: a.p50Ms,
      p95Ms: a.p95Ms,
      p99Ms: a.p99Ms,
      burnRate,
      errorBudgetRemaining: 1 - burnRate,
      latency: {
        slow: a.slow,
        served: a.served,
        withinThreshold: a.served === 0 ? null : (a.served - a.slow) / a.served,
        burnRate: latencyBurn,
        errorBudgetRemaining: 1 - latencyBurn,
      },
    };
  }
}

/** One point per bucket, oldest first; buckets without rows are empty points (nulls). */
function seriesPoints(to: Date, bucketMinutes: number, buckets: number, rows: readonly SliBucketAggregate[], objective: Objective): SloSeriesPoint[] {
  const byAge = new Map(rows.map((r) => [r.age, r]));
  const points: SloSeriesPoint[] = [];
  for (let age = buckets - 1; age >= 0; age--) {
    const r = byAge.get(age) ?? { age, requests: 0, errors: 0, served: 0, slow: 0, p95Ms: null };
    const end = to.getTime() - age * bucketMinutes * MINUTE_MS;
    points.push({
      from: new Date(end - bucketMinutes * MINUTE_MS),
      to: new Date(end),
      requests: r.requests,
      errors: r.errors,
      availability: r.requests === 0 ? null : (r.requests - r.errors) / r.requests,
      burnRate: r.requests === 0 ? null : burnRate('availability', r, objective),
      p95Ms: r.p95Ms,
      served: r.served,
      slow: r.slow,
      withinThreshold: r.served === 0 ? null : (r.served - r.slow) / r.served,
      latencyBurnRate: r.served === 0 ? null : burnRate('latency', r, objective),
    });
  }
  return points;
}

function emptyAggregate(): SliWindowAggregate {
  return { endpoint: null, requests: 0, errors: 0, served: 0, slow: 0, p50Ms: null, p95Ms: null, p99Ms: null };
}
