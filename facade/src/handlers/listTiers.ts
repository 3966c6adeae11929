import { tiersView } from '../identity/index.js';
import type { OperationHandler } from '../handler-context.js';

/** GET /api/auth/tiers: every tier with its rate, quotas, limits and price. */
export const listTiers: OperationHandler<'listTiers'> = async ({ res, deps }) => {
  res.json(tiersView(deps.access.tiers.tiers));
};
