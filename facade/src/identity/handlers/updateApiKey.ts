import { apiKeyView, parseApiKeyUpdateRequest } from '../index.js';
import { handler } from '../../handler-context.js';

/** PATCH /api/auth/keys/{key_id} (administrator): name, tier, disabled, quota and rate overrides. */
export const updateApiKey = handler('updateApiKey', ['access'], async ({ params, body, res, deps }) => {
  const record = await deps.access.apiKeys.update(params.key_id, parseApiKeyUpdateRequest(body));
  res.json(apiKeyView(record));
});
