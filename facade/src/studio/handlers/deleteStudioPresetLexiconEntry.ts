import { studioCallerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** DELETE /api/studio/presets/{preset_id}/lexicon/entries/{word}: removes one entry of the preset's lexicon. */
export const deleteStudioPresetLexiconEntry = handler('deleteStudioPresetLexiconEntry', ['lexicons'], async ({ params, res, deps }) => {
  const owner = await deps.lexicons.presetLexiconOf(studioCallerOf(res), params.preset_id);
  await deps.lexicons.delete(owner, params.word);
  res.json({ ok: true, word: params.word, deleted: true });
});
