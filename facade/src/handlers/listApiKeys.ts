import { apiKeyView } from '../identity/index.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/auth/keys (administrator): every key, never a secret. */
export const listApiKeys: OperationHandler = async ({ res, deps }) => {
  const keys = await deps.access.apiKeys.list();
  res.json({ keys: keys.map(apiKeyView) });
};
