import { lexiconEntryJson } from '../../speech/lexicons.js';
import { studioCallerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** PUT /api/studio/presets/{preset_id}/lexicon/entries/{word}: sets one entry of the preset's lexicon (201 when new). */
export const putStudioPresetLexiconEntry = handler('putStudioPresetLexiconEntry', ['lexicons'], async ({ params, body, res, deps }) => {
  const owner = await deps.lexicons.presetLexiconOf(studioCallerOf(res), params.preset_id);
  const { entry, created } = await deps.lexicons.put(owner, params.word, body);
  res.status(created ? 201 : 200).json(lexiconEntryJson(entry));
});
