/**
 * The API key tiers: rate, character quotas, text length, concurrency and price. Every key belongs
 * to one; per-key overrides can replace the character quotas and the rate.
 */
import { TtsError } from '@tts/common';

/** One tier. */
export interface Tier {
  /** Stable name stored on keys. */
  readonly name: string;
  /**
   * Default calls per minute for keys of this tier (a key's own `rateLimitPerMinute` overrides it),
   * from 1 to 100000: it replaces the api_key rate profile's 360/min, above or below it.
   */
  readonly ratePerMinute: number;
  /** Successful characters per UTC day. */
  readonly dailyCharQuota: number;
  /** Successful characters per UTC calendar month. */
  readonly monthlyCharQuota: number;
  /** Longest text accepted in one request, in characters. */
  readonly maxTextLength: number;
  /** Asynchronous jobs a key may have queued or running at once. */
  readonly concurrentJobs: number;
  /**
   * Synchronous syntheses a key may have in flight at once (more: 429 TTS_CONCURRENCY_LIMIT), and
   * the key's weight in the nodes' fair sharing of an engine between callers.
   */
  readonly concurrentRequests: number;
  /**
   * Streaming sessions (the WebSocket and Wyoming sessions: text in pieces, audio out) a key may
   * hold open at once (more: 429 SESSION_LIMIT_EXCEEDED). Separate from `concurrentRequests`: an
   * agent holds one session per conversation for its whole life, mostly idle.
   */
  readonly concurrentSessions: number;
  /** Price in US dollars per million successful characters. */
  readonly pricePerMillionCharsUsd: number;
}

/**
 * The tiers, cheapest first. Rates follow the documented api_key profile (360/min) for every tier
 * (a key of any tier can be given its own rate): tiers differ by volume (quotas, text length, concurrent jobs and requests) and price, in line with common
 * cloud TTS offers (free trial volume; about $15 per million characters at list price, less at
 * volume).
 */
export const TIERS: readonly Tier[] = [
  { name: 'free', ratePerMinute: 360, dailyCharQuota: 10_000, monthlyCharQuota: 100_000, maxTextLength: 1_000, concurrentJobs: 1, concurrentRequests: 2, concurrentSessions: 2, pricePerMillionCharsUsd: 0 },
  { name: 'pro', ratePerMinute: 360, dailyCharQuota: 500_000, monthlyCharQuota: 5_000_000, maxTextLength: 5_000, concurrentJobs: 4, concurrentRequests: 10, concurrentSessions: 16, pricePerMillionCharsUsd: 15 },
  { name: 'enterprise', ratePerMinute: 360, dailyCharQuota: 5_000_000, monthlyCharQuota: 100_000_000, maxTextLength: 20_000, concurrentJobs: 16, concurrentRequests: 32, concurrentSessions: 128, pricePerMillionCharsUsd: 10 },
];

/**
 * The studio tiers, by kind of studio account (studio/tiers.ts applies them): the studio rate
 * profile (8/min) for all; volumes grow from guest to member to VIP. Studio use is not billed per
 * character (VIP is a subscription), so their price is 0.
 */
export const STUDIO_TIERS = {
  guest: { name: 'studio_guest', ratePerMinute: 8, dailyCharQuota: 5_000, monthlyCharQuota: 50_000, maxTextLength: 500, concurrentJobs: 1, concurrentRequests: 1, concurrentSessions: 1, pricePerMillionCharsUsd: 0 },
  registered: { name: 'studio_member', ratePerMinute: 8, dailyCharQuota: 20_000, monthlyCharQuota: 200_000, maxTextLength: 2_000, concurrentJobs: 2, concurrentRequests: 2, concurrentSessions: 1, pricePerMillionCharsUsd: 0 },
  vip: { name: 'studio_vip', ratePerMinute: 8, dailyCharQuota: 200_000, monthlyCharQuota: 3_000_000, maxTextLength: 10_000, concurrentJobs: 4, concurrentRequests: 4, concurrentSessions: 2, pricePerMillionCharsUsd: 0 },
} as const satisfies Record<string, Tier>;

/** The API key tier or studio tier called `name` (usage reports price both), or undefined. */
export function findPricedTier(name: string): Tier | undefined {
  return findTier(name) ?? Object.values(STUDIO_TIERS).find((t) => t.name === name);
}

/** The tier given to keys created without one. */
export const DEFAULT_TIER = 'free';

/** The built-in tier called `name` (before any configured rate: see TierTable), or undefined. */
export function findTier(name: string): Tier | undefined {
  return TIERS.find((t) => t.name === name);
}

/** Throws TTS_TEXT_TOO_LONG when `characters` exceeds the tier's maximum text length. */
export function checkTextLength(tier: Tier, characters: number, loc: readonly (string | number)[] = ['body', 'text']): void {
  if (characters > tier.maxTextLength) {
    throw new TtsError('TTS_TEXT_TOO_LONG', `The text has ${characters} characters; the ${tier.name} tier accepts at most ${tier.maxTextLength}.`, { loc });
  }
}
