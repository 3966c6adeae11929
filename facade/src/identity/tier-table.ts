/**
 * The API key tiers as this deployment runs them: the built-in tiers (tiers.ts) with the rates and
 * concurrency caps an administrator configured (TTS_TIER_RATE_PER_MINUTE, TTS_TIER_CONCURRENCY).
 * These are the only deployment settings of a tier: quotas and prices stay those of the published
 * tier table.
 */
import { ConfigError, TtsError } from '@tts/common';
import { isValidRatePerMinute, MAX_RATE_PER_MINUTE, MIN_RATE_PER_MINUTE } from './rate-limits.js';
import { DEFAULT_TIER, TIERS, type Tier } from './tiers.js';

/** The variable an administrator sets tier rates with: `pro=1200,enterprise=6000`. */
export const TIER_RATE_VARIABLE = 'TTS_TIER_RATE_PER_MINUTE';

/** The variable an administrator sets tiers' synchronous concurrency caps with: `pro=8,enterprise=32`. */
export const TIER_CONCURRENCY_VARIABLE = 'TTS_TIER_CONCURRENCY';
/** Bounds of a tier's concurrency cap. */
export const MAX_TIER_CONCURRENCY = 1000;

/** The variable an administrator sets tiers' streaming-session caps with: `pro=32,enterprise=256`. */
export const TIER_SESSIONS_VARIABLE = 'TTS_TIER_SESSIONS';
/** Bounds of a tier's session cap. */
export const MAX_TIER_SESSIONS = 10_000;

/**
 * Parses `name=integer` pairs of `variable` separated by commas (blank = none). Throws ConfigError
 * naming the variable for an unknown tier, a repeated tier, or a value `what.valid` refuses.
 */
function parseTierIntegers(variable: string, value: string | undefined, what: { readonly noun: string; readonly example: string; readonly range: string; readonly valid: (n: number) => boolean }): Readonly<Record<string, number>> {
  const values: Record<string, number> = {};
  for (const pair of (value ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const m = /^([a-z_]+)=(\d+)$/.exec(pair);
    if (m === null) throw new ConfigError(variable, `'${pair}' is not tier=${what.noun} (e.g. ${what.example})`);
    const [, name, digits] = m as unknown as [string, string, string];
    if (!TIERS.some((t) => t.name === name)) throw new ConfigError(variable, `'${name}' is not a tier (${TIERS.map((t) => t.name).join(', ')})`);
    if (name in values) throw new ConfigError(variable, `tier '${name}' is given twice`);
    const n = Number(digits);
    if (!what.valid(n)) throw new ConfigError(variable, `the ${what.noun} of '${name}' must be an integer from ${what.range}`);
    values[name] = n;
  }
  return Object.freeze(values);
}

/**
 * Parses `name=rate` pairs separated by commas (blank = none). Throws ConfigError naming the
 * variable for an unknown tier, a repeated tier, or a rate that is not an integer from 1 to 100000.
 */
export function parseTierRates(value: string | undefined): Readonly<Record<string, number>> {
  return parseTierIntegers(TIER_RATE_VARIABLE, value, { noun: 'rate', example: 'pro=1200', range: `${MIN_RATE_PER_MINUTE} to ${MAX_RATE_PER_MINUTE}`, valid: isValidRatePerMinute });
}

/**
 * Parses `name=cap` pairs (synchronous syntheses in flight per key) separated by commas (blank =
 * none). Throws ConfigError naming the variable for an unknown tier, a repeated tier, or a cap that
 * is not an integer from 1 to 1000.
 */
export function parseTierConcurrency(value: string | undefined): Readonly<Record<string, number>> {
  return parseTierIntegers(TIER_CONCURRENCY_VARIABLE, value, { noun: 'cap', example: 'pro=8', range: `1 to ${MAX_TIER_CONCURRENCY}`, valid: (n) => Number.isInteger(n) && n >= 1 && n <= MAX_TIER_CONCURRENCY });
}

/**
 * Parses TTS_TIER_SESSIONS (`pro=32,enterprise=256`): streaming sessions a key may hold open at
 * once, by tier; throws ConfigError naming the variable.
 */
export function parseTierSessions(value: string | undefined): Readonly<Record<string, number>> {
  return parseTierIntegers(TIER_SESSIONS_VARIABLE, value, { noun: 'cap', example: 'pro=32', range: `1 to ${MAX_TIER_SESSIONS}`, valid: (n) => Number.isInteger(n) && n >= 1 && n <= MAX_TIER_SESSIONS });
}

/** The tiers with their configured rates and concurrency caps; looked up by name. */
export class TierTable {
  readonly tiers: readonly Tier[];

  /**
   * `rates`: calls per minute by tier name (from `parseTierRates`); `concurrency`: synchronous
   * syntheses in flight per key by tier name (from `parseTierConcurrency`); other tiers keep their
   * defaults; `sessions`: streaming sessions per key by tier name (from `parseTierSessions`).
   */
  constructor(rates: Readonly<Record<string, number>> = {}, concurrency: Readonly<Record<string, number>> = {}, sessions: Readonly<Record<string, number>> = {}) {
    this.tiers = Object.freeze(TIERS.map((t) => Object.freeze({
      ...t,
      ratePerMinute: rates[t.name] ?? t.ratePerMinute,
      concurrentRequests: concurrency[t.name] ?? t.concurrentRequests,
      concurrentSessions: sessions[t.name] ?? t.concurrentSessions,
    })));
  }

  /** The tier called `name`, or undefined. */
  find(name: string): Tier | undefined {
    return this.tiers.find((t) => t.name === name);
  }

  /** The tier called `name`; throws AUTH_TIER_UNKNOWN (422) otherwise. */
  require(name: string, loc: readonly (string | number)[] = ['body', 'tier']): Tier {
    const tier = this.find(name);
    if (tier === undefined) throw new TtsError('AUTH_TIER_UNKNOWN', undefined, { loc });
    return tier;
  }

  /**
   * The tier of a stored key. A name no longer in the table (a tier was removed) falls back to the
   * default tier rather than failing the caller's request.
   */
  ofKey(name: string): Tier {
    return this.find(name) ?? this.find(DEFAULT_TIER)!;
  }
}
