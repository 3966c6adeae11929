/** Reference clips for cloning: validation, transcription, the owner's stored clips. */
import { deleteReference } from './deleteReference.js';
import { getReference } from './getReference.js';
import { listReferences } from './listReferences.js';
import { transcribeReference } from './transcribeReference.js';
import { validateReference } from './validateReference.js';

/** The handlers of this room, keyed by operationId. */
export const REFERENCES_HANDLERS = {
  validateReference,
  transcribeReference,
  listReferences,
  getReference,
  deleteReference,
} as const;
