import { tiersView } from '../index.js';
import { handler } from '../../handler-context.js';

/** GET /api/auth/tiers: every tier with its rate, quotas, limits and price. */
export const listTiers = handler('listTiers', ['access'], async ({ res, deps }) => {
  res.json(tiersView(deps.access.tiers.tiers));
});
