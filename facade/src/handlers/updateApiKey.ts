import { apiKeyView, parseApiKeyUpdateRequest } from '../identity/index.js';
import type { OperationHandler } from '../operation.js';

/** PATCH /api/auth/keys/{key_id} (administrator): name, tier, disabled, quota overrides. */
export const updateApiKey: OperationHandler = async ({ req, res, deps }) => {
  const record = await deps.access.apiKeys.update(String(req.params['key_id']), parseApiKeyUpdateRequest(req.body));
  res.json(apiKeyView(record));
};
