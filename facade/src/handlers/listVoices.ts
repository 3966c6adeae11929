import { aliasTable } from '../domain/voices.js';
import { voiceJson } from '../domain/views.js';
import type { OperationHandler } from '../operation.js';

/** GET /v1/audio/voices: voices of ready engines and the OpenAI name mapping. */
export const listVoices: OperationHandler = async ({ req, res, deps }) => {
  const snap = await deps.cluster.snapshot();
  const engine = typeof req.query['engine'] === 'string' ? req.query['engine'].toLowerCase().replace('espeak-ng', 'espeak') : '';
  const language = typeof req.query['language'] === 'string' ? req.query['language'].toLowerCase() : '';
  const voices = snap.voices
    .filter((v) => engine === '' || v.engine === engine)
    .filter((v) => language === '' || v.language.toLowerCase().startsWith(language) || v.languages.some((l) => l.toLowerCase().startsWith(language)))
    .map(voiceJson);
  res.json({ voices, openai_aliases: aliasTable(snap.voices, deps.config.defaultVoice), default_voice: deps.config.defaultVoice });
};
