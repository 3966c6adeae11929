import { createdApiKeyView, parseApiKeyCreateRequest } from '../index.js';
import { handler } from '../../handler-context.js';

/** POST /api/auth/keys (administrator): creates a key; its secret is in this answer only. */
export const createApiKey = handler('createApiKey', ['access'], async ({ body, res, deps }) => {
  const created = await deps.access.apiKeys.create(parseApiKeyCreateRequest(body));
  res.status(201).json(createdApiKeyView(created));
});
