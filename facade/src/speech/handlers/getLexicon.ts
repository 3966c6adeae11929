import { lexiconJson, ownLexiconOf } from '../lexicons.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** GET /api/lexicon: the caller's pronunciation lexicon (its API key's, or its studio user's). */
export const getLexicon = handler('getLexicon', ['lexicons'], async ({ res, deps }) => {
  const owner = ownLexiconOf(callerOf(res));
  res.json(lexiconJson(owner, await deps.lexicons.list(owner)));
});
