import { lexiconJson, ownLexiconOf } from '../lexicons.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** PUT /api/lexicon: replaces the caller's whole lexicon, checked as a whole first. */
export const replaceLexicon = handler('replaceLexicon', ['lexicons'], async ({ body, res, deps }) => {
  const owner = ownLexiconOf(callerOf(res));
  res.json(lexiconJson(owner, await deps.lexicons.replace(owner, body.entries)));
});
