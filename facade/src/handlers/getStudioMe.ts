import { RATE_PROFILES } from '../identity/index.js';
import { studioCallerOf } from '../middleware/access.js';
import { studioUserJson } from '../studio/accounts.js';
import { limitsOf } from '../studio/presets.js';
import type { OperationHandler } from '../handler-context.js';

/** GET /api/studio/auth/me: the caller, its session, limits and rate budgets. */
export const getStudioMe: OperationHandler<'getStudioMe'> = async ({ res }) => {
  const p = studioCallerOf(res);
  const limits = limitsOf(p);
  res.json({
    user: studioUserJson(p.user, new Date(), false),
    session: { session_id: p.sessionId, expires_at: p.expiresAt.toISOString(), absolute_expires_at: p.absoluteExpiresAt.toISOString() },
    limits: { presets: limits.presets, active_shares: limits.shares },
    rate_limits: {
      studio: { limit: RATE_PROFILES.studio.limit, window_sec: RATE_PROFILES.studio.windowSec },
      studio_edit: { limit: RATE_PROFILES.studio_edit.limit, window_sec: RATE_PROFILES.studio_edit.windowSec },
    },
  });
};
