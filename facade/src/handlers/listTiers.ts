import { tiersView } from '../identity/index.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/auth/tiers: every tier with its rate, quotas, limits and price. */
export const listTiers: OperationHandler = async ({ res }) => {
  res.json(tiersView());
};
