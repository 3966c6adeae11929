import { lexiconJson } from '../../speech/lexicons.js';
import { studioCallerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** GET /api/studio/presets/{preset_id}/lexicon: the caller's preset's lexicon. */
export const getStudioPresetLexicon = handler('getStudioPresetLexicon', ['lexicons'], async ({ params, res, deps }) => {
  const owner = await deps.lexicons.presetLexiconOf(studioCallerOf(res), params.preset_id);
  res.json(lexiconJson(owner, await deps.lexicons.list(owner)));
});
