/**
 * What a studio user may synthesize, by kind of account: the studio rate profile (8 calls per
 * minute per user, as documented) for every kind, and per-kind volumes in the shape of the API key
 * tiers (STUDIO_TIERS in identity/tiers.ts): longest text, successful characters per UTC day and
 * month (checked and staged like API key quotas, X-Quota-Stage), and the queue priority of their
 * web jobs. VIP is the higher tier.
 */
import { STUDIO_TIERS, type Tier } from '../identity/index.js';
import type { StudioPrincipal } from './accounts.js';

/** The tier of a studio session's user (VIP while the membership runs). */
export function studioTierOf(p: StudioPrincipal): Tier {
  if (p.vip) return STUDIO_TIERS.vip;
  return p.user.kind === 'guest' ? STUDIO_TIERS.guest : STUDIO_TIERS.registered;
}

/** The subject a studio user's usage and quotas are counted under (`usage_events.key_id`). */
export function studioUsageSubject(userId: string): string {
  return `studio:${userId}`;
}

/** A tier as the studio pages show it. */
export function studioTierJson(t: Tier): Record<string, unknown> {
  return {
    tier: t.name,
    rate_per_minute: t.ratePerMinute,
    max_text_length: t.maxTextLength,
    daily_char_quota: t.dailyCharQuota,
    monthly_char_quota: t.monthlyCharQuota,
  };
}

export { STUDIO_TIERS };
