import { classifyError as classify } from '../error-classifier.js';
import { handler } from '../../handler-context.js';

/** POST /api/errors/classify: places an error (code, HTTP or gRPC status) in the catalogue. */
export const classifyError = handler('classifyError', [], async ({ body, res }) => {
  res.json(classify(body));
});
