import { classifyError as classify } from '../domain/error-classifier.js';
import type { OperationHandler } from '../operation.js';

/** POST /api/errors/classify: places an error (code, HTTP or gRPC status) in the catalogue. */
export const classifyError: OperationHandler = async ({ req, res }) => {
  res.json(classify(req.body as Parameters<typeof classify>[0]));
};
