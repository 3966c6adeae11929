import { apiKeyView } from '../index.js';
import { handler } from '../../handler-context.js';

/** GET /api/auth/keys (administrator): every key, never a secret. */
export const listApiKeys = handler('listApiKeys', ['access'], async ({ res, deps }) => {
  const keys = await deps.access.apiKeys.list();
  res.json({ keys: keys.map(apiKeyView) });
});
