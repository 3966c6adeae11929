import { ownLexiconOf } from '../lexicons.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** DELETE /api/lexicon/entries/{word}: removes one entry of the caller's lexicon. */
export const deleteLexiconEntry = handler('deleteLexiconEntry', ['lexicons'], async ({ params, res, deps }) => {
  await deps.lexicons.delete(ownLexiconOf(callerOf(res)), params.word);
  res.json({ ok: true, word: params.word, deleted: true });
});
