import { aliasTable } from '../voices.js';
import { voiceJson } from '../../cluster/node-views.js';
import { handler } from '../../handler-context.js';

/** GET /v1/audio/voices: voices of ready engines and the OpenAI name mapping. */
export const listVoices = handler('listVoices', ['cluster', 'config'], async ({ query, res, deps }) => {
  const snap = await deps.cluster.snapshot();
  const engine = (query.engine ?? '').toLowerCase().replace('espeak-ng', 'espeak');
  const language = (query.language ?? '').toLowerCase();
  const voices = snap.voices
    .filter((v) => engine === '' || v.engine === engine)
    .filter((v) => language === '' || v.language.toLowerCase().startsWith(language) || v.languages.some((l) => l.toLowerCase().startsWith(language)))
    .map(voiceJson);
  res.json({ voices, openai_aliases: aliasTable(snap.voices, deps.config.defaultVoice), default_voice: deps.config.defaultVoice });
});
