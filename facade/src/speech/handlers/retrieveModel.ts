import { modelOf } from '../models.js';
import { OPENAI_MODELS } from '../voices.js';
import { handler } from '../../handler-context.js';

/** GET /v1/models/{model}: one model of the list, 404 model_not_found otherwise (OpenAI's models.retrieve). */
export const retrieveModel = handler('retrieveModel', ['cluster'], async ({ params, res, deps }) => {
  const id = params.model;
  // OpenAI's ids answer without the cluster (as the list does while the scheduler is unreachable).
  const engines = (OPENAI_MODELS as readonly string[]).includes(id) ? [] : (await deps.cluster.snapshot()).engines;
  res.json(modelOf(id, engines));
});
