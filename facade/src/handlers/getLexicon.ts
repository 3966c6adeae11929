import { lexiconJson, ownLexiconOf } from '../domain/lexicons.js';
import { callerOf } from '../middleware/access.js';
import type { OperationHandler } from '../handler-context.js';

/** GET /api/lexicon: the caller's pronunciation lexicon (its API key's, or its studio user's). */
export const getLexicon: OperationHandler<'getLexicon'> = async ({ res, deps }) => {
  const owner = ownLexiconOf(callerOf(res));
  res.json(lexiconJson(owner, await deps.lexicons.list(owner)));
};
