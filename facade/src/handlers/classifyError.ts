import { classifyError as classify } from '../domain/error-classifier.js';
import type { OperationHandler } from '../handler-context.js';

/** POST /api/errors/classify: places an error (code, HTTP or gRPC status) in the catalogue. */
export const classifyError: OperationHandler<'classifyError'> = async ({ body, res }) => {
  res.json(classify(body));
};
