/**
 * The table of operation handlers, keyed by the OpenAPI operationId. Routes are registered from
 * the OpenAPI document; start-up fails if an operation has no handler or a handler no operation.
 */
import type { OperationHandler } from './operation.js';
import { classifyError } from './handlers/classifyError.js';
import { createSpeech } from './handlers/createSpeech.js';
import { exportOpenapi } from './handlers/exportOpenapi.js';
import { getCapabilities } from './handlers/getCapabilities.js';
import { getErrorDocs } from './handlers/getErrorDocs.js';
import { getHealth } from './handlers/getHealth.js';
import { getQuickstart } from './handlers/getQuickstart.js';
import { getVersion } from './handlers/getVersion.js';
import { listEngines } from './handlers/listEngines.js';
import { listModels } from './handlers/listModels.js';
import { listVoices } from './handlers/listVoices.js';
import { ttsSynthesize } from './handlers/ttsSynthesize.js';

export const OPERATIONS = {
  ttsSynthesize,
  createSpeech,
  listModels,
  listVoices,
  getHealth,
  getCapabilities,
  listEngines,
  getVersion,
  getQuickstart,
  exportOpenapi,
  getErrorDocs,
  classifyError,
} as const satisfies Record<string, OperationHandler>;

/** An operationId with a handler. */
export type OperationId = keyof typeof OPERATIONS;
