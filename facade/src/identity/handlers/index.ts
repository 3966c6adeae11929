/** Identity: authentication modes, tiers, the anti-bot challenge, API keys, usage and cost. */
import { createApiKey } from './createApiKey.js';
import { getAuthChallenge } from './getAuthChallenge.js';
import { getAuthConfig } from './getAuthConfig.js';
import { getCostDashboard } from './getCostDashboard.js';
import { getUsageSummary } from './getUsageSummary.js';
import { listApiKeys } from './listApiKeys.js';
import { listTiers } from './listTiers.js';
import { solveAuthChallenge } from './solveAuthChallenge.js';
import { updateApiKey } from './updateApiKey.js';

/** The handlers of this room, keyed by operationId. */
export const IDENTITY_HANDLERS = {
  getAuthConfig,
  listTiers,
  getAuthChallenge,
  solveAuthChallenge,
  listApiKeys,
  createApiKey,
  updateApiKey,
  getUsageSummary,
  getCostDashboard,
} as const;
