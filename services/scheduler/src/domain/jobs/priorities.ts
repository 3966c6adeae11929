/**
 * Priority of a job by the tier of its owner: enterprise > pro (and studio VIP) > free > web (and
 * the other studio tiers).
 */

/** Priority levels of the job queue (0 = most urgent). */
export const PRIORITY_LEVELS = 4;

const TIER_PRIORITY: Readonly<Record<string, number>> = { enterprise: 0, pro: 1, studio_vip: 1, free: 2, web: 3, studio_member: 3, studio_guest: 3 };

/** Queue priority of a tier; tiers this scheduler does not know rank as free. */
export function priorityOfTier(tier: string): number {
  return TIER_PRIORITY[tier.trim().toLowerCase()] ?? TIER_PRIORITY['free']!;
}
