import { authConfigView, RATE_PROFILES } from '../index.js';
import { handler } from '../../handler-context.js';

/** GET /api/auth/config: mode, accepted credentials, rate profiles, challenge parameters. */
export const getAuthConfig = handler('getAuthConfig', ['access', 'config'], async ({ res, deps }) => {
  res.json(authConfigView({ mode: deps.config.authMode, challenge: deps.access.challenge, profiles: RATE_PROFILES }));
});
