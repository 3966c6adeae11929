import { lexiconJson } from '../../speech/lexicons.js';
import { studioCallerOf } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** PUT /api/studio/presets/{preset_id}/lexicon: replaces the preset's whole lexicon. */
export const replaceStudioPresetLexicon = handler('replaceStudioPresetLexicon', ['lexicons'], async ({ params, body, res, deps }) => {
  const owner = await deps.lexicons.presetLexiconOf(studioCallerOf(res), params.preset_id);
  res.json(lexiconJson(owner, await deps.lexicons.replace(owner, body.entries)));
});
