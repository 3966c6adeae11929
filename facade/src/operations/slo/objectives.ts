/**
 * Service level objectives: an availability target and a p95 latency threshold, for every endpoint
 * by default and per endpoint where configured (TTS_SLO_OBJECTIVES), and the multi-window,
 * multi-burn-rate alert rules of the SRE workbook (chapter 5, "Alerting on SLOs").
 */
import { ConfigError } from '@tts/common';

/** The objective of one endpoint. */
export interface Objective {
  /** Fraction of requests that must not fail, in (0, 1). */
  readonly availability: number;
  /** 95 % of served requests must be at most this fast, ms. */
  readonly latencyP95Ms: number;
}

/** Every objective, and the alerting guard. */
export interface SloObjectives {
  /** Objective of endpoints not listed in `endpoints`, and of the overall figures. */
  readonly default: Objective;
  /** Per-endpoint objectives, keyed "METHOD /path/template" (e.g. "POST /api/tts"). */
  readonly endpoints: Readonly<Record<string, Objective>>;
  /** Requests the long window of an alert must hold before it may fire (minimum-traffic guard). */
  readonly minRequests: number;
}

/** The latency SLI's quantile: a p95 threshold means 5 % of requests may be slower. */
export const LATENCY_QUANTILE = 0.95;

/** One multi-window burn-rate alert rule. */
export interface BurnRateRule {
  /** Stable id, e.g. "page-1h-5m". */
  readonly name: string;
  readonly severity: 'page' | 'ticket';
  readonly longWindowMinutes: number;
  readonly shortWindowMinutes: number;
  /** The rule fires when both windows burn the error budget faster than this. */
  readonly burnRate: number;
}

/**
 * The SRE workbook's recommended rules for a 30-day SLO: page at 14.4x over 1 h and 5 min (2 % of
 * the budget in an hour) or 6x over 6 h and 30 min (5 % in six hours); ticket at 3x over 1 day and
 * 2 h (10 % in a day) or 1x over 3 days and 6 h. The deployment's PrometheusRule has the same table.
 */
export const BURN_RATE_RULES: readonly BurnRateRule[] = Object.freeze([
  { name: 'page-1h-5m', severity: 'page', longWindowMinutes: 60, shortWindowMinutes: 5, burnRate: 14.4 },
  { name: 'page-6h-30m', severity: 'page', longWindowMinutes: 360, shortWindowMinutes: 30, burnRate: 6 },
  { name: 'ticket-1d-2h', severity: 'ticket', longWindowMinutes: 1440, shortWindowMinutes: 120, burnRate: 3 },
  { name: 'ticket-3d-6h', severity: 'ticket', longWindowMinutes: 4320, shortWindowMinutes: 360, burnRate: 1 },
]);

/** The longest alert window, minutes. */
export const LONGEST_ALERT_WINDOW_MINUTES = Math.max(...BURN_RATE_RULES.map((r) => r.longWindowMinutes));

/** Objectives when TTS_SLO_OBJECTIVES is unset: 99.9 %, p95 1 s; synthesis endpoints p95 5 s. */
export const DEFAULT_OBJECTIVES: SloObjectives = Object.freeze({
  default: Object.freeze({ availability: 0.999, latencyP95Ms: 1000 }),
  endpoints: Object.freeze({
    'POST /api/tts': Object.freeze({ availability: 0.999, latencyP95Ms: 5000 }),
    'POST /v1/audio/speech': Object.freeze({ availability: 0.999, latencyP95Ms: 5000 }),
    'POST /v1/text-to-speech/{voice_id}': Object.freeze({ availability: 0.999, latencyP95Ms: 5000 }),
    'POST /v1/text-to-speech/{voice_id}/stream': Object.freeze({ availability: 0.999, latencyP95Ms: 5000 }),
    'POST /v1/text-to-speech/{voice_id}/with-timestamps': Object.freeze({ availability: 0.999, latencyP95Ms: 5000 }),
    'POST /v1/text-to-speech/{voice_id}/stream/with-timestamps': Object.freeze({ availability: 0.999, latencyP95Ms: 5000 }),
  }),
  minRequests: 50,
});

const VARIABLE = 'TTS_SLO_OBJECTIVES';
const ENDPOINT_KEY = /^(GET|PUT|POST|DELETE|OPTIONS|HEAD|PATCH|TRACE) \/\S*$/;

function objectiveOf(value: unknown, where: string, fallback: Objective): Objective {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(VARIABLE, `${where} must be an object`);
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'availability' && k !== 'latency_p95_ms') throw new ConfigError(VARIABLE, `${where}.${k} is not a setting (use availability, latency_p95_ms)`);
  const availability = o['availability'] ?? fallback.availability;
  const latency = o['latency_p95_ms'] ?? fallback.latencyP95Ms;
  if (typeof availability !== 'number' || !(availability > 0 && availability < 1)) throw new ConfigError(VARIABLE, `${where}.availability must be a number between 0 and 1 (exclusive), e.g. 0.999`);
  if (typeof latency !== 'number' || !(latency > 0 && latency <= 3_600_000)) throw new ConfigError(VARIABLE, `${where}.latency_p95_ms must be a number of milliseconds above 0`);
  return Object.freeze({ availability, latencyP95Ms: latency });
}

/**
 * Parses TTS_SLO_OBJECTIVES, e.g.
 * `{"availability":0.999,"latency_p95_ms":1000,"endpoints":{"POST /api/tts":{"latency_p95_ms":5000}},"min_requests":50}`.
 * Unset: DEFAULT_OBJECTIVES. Endpoint entries start from the top-level objective. Throws ConfigError.
 */
export function parseObjectives(raw: string | undefined): SloObjectives {
  if (raw === undefined) return DEFAULT_OBJECTIVES;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(VARIABLE, 'must be a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(VARIABLE, 'must be a JSON object');
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!['availability', 'latency_p95_ms', 'endpoints', 'min_requests'].includes(k)) throw new ConfigError(VARIABLE, `"${k}" is not a setting (use availability, latency_p95_ms, endpoints, min_requests)`);
  }
  const top = objectiveOf({ availability: o['availability'], latency_p95_ms: o['latency_p95_ms'] }, 'the top level', DEFAULT_OBJECTIVES.default);
  const endpoints: Record<string, Objective> = {};
  const listed = o['endpoints'] ?? {};
  if (typeof listed !== 'object' || listed === null || Array.isArray(listed)) throw new ConfigError(VARIABLE, 'endpoints must be an object keyed "METHOD /path"');
  for (const [key, v] of Object.entries(listed as Record<string, unknown>)) {
    if (!ENDPOINT_KEY.test(key)) throw new ConfigError(VARIABLE, `endpoint "${key}" must look like "POST /api/tts" (method in capitals, OpenAPI path)`);
    endpoints[key] = objectiveOf(v, `endpoints["${key}"]`, top);
  }
  const minRequests = o['min_requests'] ?? DEFAULT_OBJECTIVES.minRequests;
  if (typeof minRequests !== 'number' || !Number.isInteger(minRequests) || minRequests < 1) throw new ConfigError(VARIABLE, 'min_requests must be an integer >= 1');
  return Object.freeze({ default: top, endpoints: Object.freeze(endpoints), minRequests });
}

/** The objective of `endpoint` (null: overall). */
export function objectiveFor(objectives: SloObjectives, endpoint: string | null): Objective {
  return endpoint === null ? objectives.default : (objectives.endpoints[endpoint] ?? objectives.default);
}

/** Latency thresholds for the SLI queries. */
export function latencyThresholds(objectives: SloObjectives): { byEndpoint: Record<string, number>; defaultMs: number } {
  return {
    byEndpoint: Object.fromEntries(Object.entries(objectives.endpoints).map(([k, o]) => [k, o.latencyP95Ms])),
    defaultMs: objectives.default.latencyP95Ms,
  };
}
