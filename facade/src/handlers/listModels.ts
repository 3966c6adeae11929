import { OPENAI_MODELS } from '../domain/voices.js';
import type { OperationHandler } from '../operation.js';

const CREATED = 1_700_000_000;

/** GET /v1/models: OpenAI compatibility ids plus one model per engine loaded on a ready node. */
export const listModels: OperationHandler = async ({ res, deps }) => {
  let engines: string[] = [];
  try {
    const snap = await deps.cluster.snapshot();
    engines = [...new Set(snap.ready.flatMap((n) => n.engines.filter((e) => e.ready).map((e) => e.name)))].sort();
  } catch {
    engines = [];
  }
  const data = [
    ...OPENAI_MODELS.map((id) => ({ id, object: 'model' as const, created: CREATED, owned_by: 'tts-platform', description: 'OpenAI-compatible id; voices map by name.' })),
    ...engines.map((id) => ({ id, object: 'model' as const, created: CREATED, owned_by: 'tts-platform', description: `The ${id} engine.` })),
  ];
  res.json({ object: 'list', data });
};
