/**
 * Rate limits per profile, exactly as documented: public and challenge 30/min, api_key 360/min,
 * studio 8/min (what costs: synthesis, jobs, slips; per user), studio_edit 120/min (reading and
 * editing one's own presets and shares, administration; per session), job_token 300/min (the
 * web job routes that take a job token; per client address), counted in the shared Kv (Redis
 * across replicas) with a sliding window. The same
 * decision feeds the RateLimit-* headers, Retry-After and the web job response's `rate_limit`.
 *
 * An API key's own rate replaces the api_key profile's 360/min: the key's override, else its
 * tier's default, else the profile's (see `effectiveRatePerMinute`), from 1 to 100000 a minute.
 */
import type { RateLimitDecision, RateLimiter, RateLimitRule } from '@tts/common/kv';
import { TtsError } from '@tts/common';
import type { Tier } from './tiers.js';

/** The lowest rate a key or tier may be given, in calls per minute. */
export const MIN_RATE_PER_MINUTE = 1;

/**
 * The highest rate a key or tier may be given, in calls per minute: the most calls the sliding
 * window limiter counts per window (every allowed call is kept in the window until it leaves it).
 */
export const MAX_RATE_PER_MINUTE = 100_000;

/** True when `value` is a whole number of calls per minute within the bounds. */
export function isValidRatePerMinute(value: number): boolean {
  return Number.isSafeInteger(value) && value >= MIN_RATE_PER_MINUTE && value <= MAX_RATE_PER_MINUTE;
}

/** The rate profiles. */
export type RateProfile = 'public' | 'challenge' | 'api_key' | 'studio' | 'studio_edit' | 'job_token';

/**
 * The documented limits. `public` (key-less calls, counted per client address) and `challenge`
 * (counted per challenge pass) share the 30/min value but not their counters. `job_token` counts
 * every call of a job-token operation (status, events, audio) per client address, right or wrong
 * token: room for a page polling a few jobs twice a second, not for guessing tokens.
 */
export const RATE_PROFILES: Readonly<Record<RateProfile, RateLimitRule>> = {
  public: { limit: 30, windowSec: 60 },
  challenge: { limit: 30, windowSec: 60 },
  api_key: { limit: 360, windowSec: 60 },
  studio: { limit: 8, windowSec: 60 },
  studio_edit: { limit: 120, windowSec: 60 },
  job_token: { limit: 300, windowSec: 60 },
};

/** The `rate_limit` object of the web job response. */
export interface RateLimitView {
  readonly remaining: number;
  readonly limit: number;
  readonly reset_unix: number;
  readonly window_sec: number;
}

/**
 * Thrown when a call exceeds its rate profile (RATE_LIMITED, 429). Carries the decision so the
 * error middleware can send the RateLimit-* headers with the Retry-After.
 */
export class RateLimitedError extends TtsError {
  /** The refusing decision. */
  readonly decision: RateLimitDecision;

  constructor(decision: RateLimitDecision) {
    super('RATE_LIMITED', undefined, { retryAfterSec: decision.retryAfterSec });
    this.decision = decision;
  }
}

/**
 * The calls per minute one API key may make: its own override, else its tier's default, else the
 * api_key profile's (360).
 */
export function effectiveRatePerMinute(override: number | null, tier: Pick<Tier, 'ratePerMinute'> | undefined, profiles: Readonly<Record<RateProfile, RateLimitRule>> = RATE_PROFILES): number {
  const base = profiles.api_key;
  return override ?? tier?.ratePerMinute ?? Math.round((base.limit * 60) / base.windowSec);
}

/** Counts calls against the rate profiles. */
export class RateLimitService {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly profiles: Readonly<Record<RateProfile, RateLimitRule>> = RATE_PROFILES,
  ) {}

  /**
   * The rule applied to `profile`. For api_key, `ratePerMinute` (the key's own rate, see
   * `effectiveRatePerMinute`) replaces the profile's limit over the profile's window; out of bounds
   * or absent, the profile's limit applies. Other profiles ignore it.
   */
  ruleFor(profile: RateProfile, ratePerMinute?: number): RateLimitRule {
    const base = this.profiles[profile];
    if (profile !== 'api_key' || ratePerMinute === undefined || !isValidRatePerMinute(ratePerMinute)) return base;
    const limit = Math.min(MAX_RATE_PER_MINUTE, Math.max(1, Math.floor((ratePerMinute * base.windowSec) / 60)));
    return limit === base.limit ? base : { limit, windowSec: base.windowSec };
  }

  /**
   * Counts one call by `subject` (the key id, the challenge pass id, the client address, the studio
   * user) under `profile` and returns the decision without throwing. A change of the key's rate
   * applies from its next call: the window keeps the calls already counted and compares them with
   * the new limit.
   */
  consume(profile: RateProfile, subject: string, ratePerMinute?: number): Promise<RateLimitDecision> {
    return this.limiter.consume(`${profile}:${subject}`, this.ruleFor(profile, ratePerMinute));
  }

  /** `consume`, throwing RateLimitedError when the call is refused. */
  async enforce(profile: RateProfile, subject: string, ratePerMinute?: number): Promise<RateLimitDecision> {
    const decision = await this.consume(profile, subject, ratePerMinute);
    if (!decision.allowed) throw new RateLimitedError(decision);
    return decision;
  }
}

/**
 * The response headers of a decision: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset
 * (seconds until the window is empty again), RateLimit-Policy (`<limit>;w=<window>`), and
 * Retry-After when refused.
 */
export function rateLimitHeaders(decision: RateLimitDecision, nowMs: number = Date.now()): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(Math.max(0, decision.resetUnix - Math.floor(nowMs / 1000))),
    'RateLimit-Policy': `${decision.limit};w=${decision.windowSec}`,
  };
  if (!decision.allowed) headers['Retry-After'] = String(decision.retryAfterSec);
  return headers;
}

/** The web job response's `rate_limit` object. */
export function rateLimitView(decision: RateLimitDecision): RateLimitView {
  return { remaining: decision.remaining, limit: decision.limit, reset_unix: decision.resetUnix, window_sec: decision.windowSec };
}
