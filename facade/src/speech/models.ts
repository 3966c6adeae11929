/**
 * The OpenAI-compatible model list: OpenAI's ids (voices map by name) and one model per engine that
 * can serve now. GET /v1/models and GET /v1/models/{model} both answer from it.
 */
import { TtsError } from '@tts/common';
import { OPENAI_MODELS } from './voices.js';

/** When the compatibility ids were introduced (OpenAI's `created`, Unix seconds). */
const CREATED = 1_700_000_000;

/** One model as OpenAI's API describes it. */
export interface ModelJson {
  readonly id: string;
  readonly object: 'model';
  readonly created: number;
  readonly owned_by: string;
  readonly description: string;
}

/** Every model: the OpenAI ids, then `engines` (the engines that can serve now). */
export function modelsOf(engines: readonly string[]): ModelJson[] {
  return [
    ...OPENAI_MODELS.map((id) => ({ id, object: 'model' as const, created: CREATED, owned_by: 'tts-platform', description: 'OpenAI-compatible id; voices map by name.' })),
    ...engines.map((id) => ({ id, object: 'model' as const, created: CREATED, owned_by: 'tts-platform', description: `The ${id} engine.` })),
  ];
}

/** The model `id` (exact, as OpenAI matches it); throws TTS_MODEL_NOT_FOUND. */
export function modelOf(id: string, engines: readonly string[]): ModelJson {
  const model = modelsOf(engines).find((m) => m.id === id);
  if (model === undefined) throw new TtsError('TTS_MODEL_NOT_FOUND', `The model "${id}" does not exist.`, { loc: ['path', 'model'] });
  return model;
}
