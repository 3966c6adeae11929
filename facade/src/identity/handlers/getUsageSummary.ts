import { TtsError } from '@tts/common';
import { usageSummaryView } from '../index.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** GET /api/usage/summary: an administrator sees every key; an API key sees only its own usage. */
export const getUsageSummary = handler('getUsageSummary', ['access'], async ({ query, res, deps }) => {
  const caller = callerOf(res);
  let filter = query;
  if (caller.method === 'api_key') {
    const own = caller.key.record.keyId;
    if (query.key_id !== undefined && query.key_id !== own) throw new TtsError('AUTH_ADMIN_REQUIRED', 'Only an administrator reads the usage of other keys.');
    filter = { ...query, key_id: own };
  }
  res.json(usageSummaryView(await deps.access.usage.summary(filter)));
});
