/**
 * Rate limits per profile, exactly as documented: public and challenge 30/min, api_key 360/min,
 * studio 8/min (what costs: synthesis, jobs, slips; per user), studio_edit 120/min (reading and
 * editing one's own presets and shares, administration; per session), counted in the shared Kv (Redis across replicas) with a sliding window. The same
 * decision feeds the RateLimit-* headers, Retry-After and the web job response's `rate_limit`.
 */
import type { RateLimitDecision, RateLimiter, RateLimitRule } from '@tts/common/kv';
import { TtsError } from '@tts/common';
import type { Tier } from './tiers.js';

/** The rate profiles. */
export type RateProfile = 'public' | 'challenge' | 'api_key' | 'studio' | 'studio_edit';

/**
 * The documented limits. `public` (key-less calls, counted per client address) and `challenge`
 * (counted per challenge pass) share the 30/min value but not their counters.
 */
export const RATE_PROFILES: Readonly<Record<RateProfile, RateLimitRule>> = {
  public: { limit: 30, windowSec: 60 },
  challenge: { limit: 30, windowSec: 60 },
  api_key: { limit: 360, windowSec: 60 },
  studio: { limit: 8, windowSec: 60 },
  studio_edit: { limit: 120, windowSec: 60 },
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

/** Counts calls against the rate profiles. */
export class RateLimitService {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly profiles: Readonly<Record<RateProfile, RateLimitRule>> = RATE_PROFILES,
  ) {}

  /** The rule applied to `profile`; for api_key, a tier with a lower rate tightens it. */
  ruleFor(profile: RateProfile, tier?: Tier): RateLimitRule {
    const base = this.profiles[profile];
    if (profile !== 'api_key' || tier === undefined) return base;
    const tierLimit = Math.floor((tier.ratePerMinute * base.windowSec) / 60);
    return tierLimit >= 1 && tierLimit < base.limit ? { limit: tierLimit, windowSec: base.windowSec } : base;
  }

  /**
   * Counts one call by `subject` (the key id, the challenge pass id, the client address, the studio
   * user) under `profile` and returns the decision without throwing.
   */
  consume(profile: RateProfile, subject: string, tier?: Tier): Promise<RateLimitDecision> {
    return this.limiter.consume(`${profile}:${subject}`, this.ruleFor(profile, tier));
  }

  /** `consume`, throwing RateLimitedError when the call is refused. */
  async enforce(profile: RateProfile, subject: string, tier?: Tier): Promise<RateLimitDecision> {
    const decision = await this.consume(profile, subject, tier);
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
