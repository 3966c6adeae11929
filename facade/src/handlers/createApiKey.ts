import { createdApiKeyView, parseApiKeyCreateRequest } from '../identity/index.js';
import type { OperationHandler } from '../handler-context.js';

/** POST /api/auth/keys (administrator): creates a key; its secret is in this answer only. */
export const createApiKey: OperationHandler<'createApiKey'> = async ({ body, res, deps }) => {
  const created = await deps.access.apiKeys.create(parseApiKeyCreateRequest(body));
  res.status(201).json(createdApiKeyView(created));
};
