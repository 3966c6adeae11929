import { studioMeteredSubject } from '../../speech/metering.js';
import { RATE_PROFILES } from '../../identity/index.js';
import { studioCallerOf } from '../../middleware/access.js';
import { studioUserJson } from '../accounts.js';
import { limitsOf } from '../presets.js';
import { studioTierJson } from '../tiers.js';
import { handler } from '../../handler-context.js';

/** GET /api/studio/auth/me: the caller, its session, limits and rate budgets. */
export const getStudioMe = handler('getStudioMe', ['access'], async ({ res, deps }) => {
  const p = studioCallerOf(res);
  const limits = limitsOf(p);
  const { subject, tier } = studioMeteredSubject(p);
  const quota = await deps.access.quotas.status(subject, tier);
  res.json({
    user: studioUserJson(p.user, new Date(), false),
    session: { session_id: p.sessionId, expires_at: p.expiresAt.toISOString(), absolute_expires_at: p.absoluteExpiresAt.toISOString() },
    limits: { presets: limits.presets, active_shares: limits.shares },
    rate_limits: {
      studio: { limit: RATE_PROFILES.studio.limit, window_sec: RATE_PROFILES.studio.windowSec },
      studio_edit: { limit: RATE_PROFILES.studio_edit.limit, window_sec: RATE_PROFILES.studio_edit.windowSec },
    },
    synthesis: {
      ...studioTierJson(tier),
      used: {
        stage: quota.stage,
        day_characters: quota.daily.used,
        month_characters: quota.monthly.used,
        day_resets_unix: quota.daily.resetUnix,
        month_resets_unix: quota.monthly.resetUnix,
      },
    },
  });
});
