import { modelsOf } from '../models.js';
import { handler } from '../../handler-context.js';

/** GET /v1/models: OpenAI compatibility ids plus one model per engine ready on a ready node. */
export const listModels = handler('listModels', ['cluster', 'logger'], async ({ res, deps }) => {
  let engines: readonly string[] = [];
  try {
    engines = (await deps.cluster.snapshot()).engines;
  } catch (err) {
    // The scheduler is unreachable: the compatibility ids still answer (OpenAI clients list models at start-up).
    deps.logger.warn('model list without engines: cluster view unavailable', { error: err instanceof Error ? err.message : String(err) });
  }
  res.json({ object: 'list', data: modelsOf(engines) });
});
