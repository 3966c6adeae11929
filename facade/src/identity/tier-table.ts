/**
 * The API key tiers as this deployment runs them: the built-in tiers (tiers.ts) with the rates an
 * administrator configured (TTS_TIER_RATE_PER_MINUTE). Rates are the only deployment setting of a
 * tier: quotas and prices stay those of the published tier table.
 */
import { ConfigError, TtsError } from '@tts/common';
import { isValidRatePerMinute, MAX_RATE_PER_MINUTE, MIN_RATE_PER_MINUTE } from './rate-limits.js';
import { DEFAULT_TIER, TIERS, type Tier } from './tiers.js';

/** The variable an administrator sets tier rates with: `pro=1200,enterprise=6000`. */
export const TIER_RATE_VARIABLE = 'TTS_TIER_RATE_PER_MINUTE';

/**
 * Parses `name=rate` pairs separated by commas (blank = none). Throws ConfigError naming the
 * variable for an unknown tier, a repeated tier, or a rate that is not an integer from 1 to 100000.
 */
export function parseTierRates(value: string | undefined): Readonly<Record<string, number>> {
  const rates: Record<string, number> = {};
  for (const pair of (value ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const m = /^([a-z_]+)=(\d+)$/.exec(pair);
    if (m === null) throw new ConfigError(TIER_RATE_VARIABLE, `'${pair}' is not tier=rate (e.g. pro=1200)`);
    const [, name, digits] = m as unknown as [string, string, string];
    if (!TIERS.some((t) => t.name === name)) throw new ConfigError(TIER_RATE_VARIABLE, `'${name}' is not a tier (${TIERS.map((t) => t.name).join(', ')})`);
    if (name in rates) throw new ConfigError(TIER_RATE_VARIABLE, `tier '${name}' is given twice`);
    const rate = Number(digits);
    if (!isValidRatePerMinute(rate)) throw new ConfigError(TIER_RATE_VARIABLE, `the rate of '${name}' must be an integer from ${MIN_RATE_PER_MINUTE} to ${MAX_RATE_PER_MINUTE}`);
    rates[name] = rate;
  }
  return Object.freeze(rates);
}

/** The tiers with their configured rates; looked up by name. */
export class TierTable {
  readonly tiers: readonly Tier[];

  /** `rates`: calls per minute by tier name (from `parseTierRates`); other tiers keep their default. */
  constructor(rates: Readonly<Record<string, number>> = {}) {
    this.tiers = Object.freeze(TIERS.map((t) => Object.freeze(rates[t.name] === undefined ? t : { ...t, ratePerMinute: rates[t.name]! })));
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
