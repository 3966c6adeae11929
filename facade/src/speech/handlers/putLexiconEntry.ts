import { lexiconEntryJson, ownLexiconOf } from '../lexicons.js';
import { callerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** PUT /api/lexicon/entries/{word}: sets one entry of the caller's lexicon (201 when new). */
export const putLexiconEntry = handler('putLexiconEntry', ['lexicons'], async ({ params, body, res, deps }) => {
  const { entry, created } = await deps.lexicons.put(ownLexiconOf(callerOf(res)), params.word, body);
  res.status(created ? 201 : 200).json(lexiconEntryJson(entry));
});
