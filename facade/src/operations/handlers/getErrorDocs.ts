import { ERROR_CATALOGUE } from '@tts/common';
import { handler } from '../../handler-context.js';

/** The catalogue as JSON entries (also used by the classifier). */
export function catalogueEntries(): Record<string, unknown>[] {
  return Object.entries(ERROR_CATALOGUE).map(([code, spec]) => ({
    code,
    http_status: spec.http,
    grpc_status: spec.grpc,
    openai_type: spec.openaiType,
    message: spec.message,
    hint: spec.hint,
    retryable: spec.retryable,
  }));
}

/** GET /api/errors/docs: exactly the error catalogue. */
export const getErrorDocs = handler('getErrorDocs', [], async ({ res }) => {
  res.json({ errors: catalogueEntries() });
});
