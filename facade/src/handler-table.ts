/**
 * The table of operation handlers, keyed by the OpenAPI operationId, gathered from the rooms. The compiler checks that every
 * documented operation has a handler of its own request types; routes are registered from the
 * OpenAPI document, and start-up also fails if the table and the document disagree.
 */
import type { OperationHandler, OperationId } from './handler-context.js';
import { SPEECH_HANDLERS } from './speech/handlers/index.js';
import { JOBS_HANDLERS } from './jobs/handlers/index.js';
import { REFERENCES_HANDLERS } from './references/handlers/index.js';
import { IDENTITY_HANDLERS } from './identity/handlers/index.js';
import { STUDIO_HANDLERS } from './studio/handlers/index.js';
import { COMPLIANCE_HANDLERS } from './compliance/handlers/index.js';
import { OPERATIONS_HANDLERS } from './operations/handlers/index.js';

/** Every room's handlers (each room's handlers/index.ts lists its own). */
export const OPERATIONS = {
  ...SPEECH_HANDLERS,
  ...JOBS_HANDLERS,
  ...REFERENCES_HANDLERS,
  ...IDENTITY_HANDLERS,
  ...STUDIO_HANDLERS,
  ...COMPLIANCE_HANDLERS,
  ...OPERATIONS_HANDLERS,
} as const satisfies { readonly [Id in OperationId]: OperationHandler<Id> };
