import { createdApiKeyView, parseApiKeyCreateRequest } from '../identity/index.js';
import type { OperationHandler } from '../operation.js';

/** POST /api/auth/keys (administrator): creates a key; its secret is in this answer only. */
export const createApiKey: OperationHandler = async ({ req, res, deps }) => {
  const created = await deps.access.apiKeys.create(parseApiKeyCreateRequest(req.body));
  res.setHeader('Cache-Control', 'no-store');
  res.status(201).json(createdApiKeyView(created));
};
