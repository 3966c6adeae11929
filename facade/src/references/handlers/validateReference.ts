import { ownerKeyIdOf } from '../../identity/owner.js';
import { validationJson } from '../references.js';
import { callerOf } from '../../middleware/access.js';
import { uploadOf } from '../../middleware/uploads.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/reference/validate (multipart, file `ref_audio`): the clip's facts, guideline checks
 * and quality warnings, measured on an inference node; the clip is kept for reuse by its
 * `reference_id` unless `store=false` or it is longer than the stored-clip limit.
 */
export const validateReference = handler('validateReference', ['references'], async ({ query, res, deps, requestId, signal }) => {
  const upload = uploadOf(res, 'ref_audio');
  const validation = await deps.references.validate(
    { path: upload.path, filename: upload.filename, mimeType: upload.mimeType, sizeBytes: upload.sizeBytes },
    { ownerKeyId: ownerKeyIdOf(callerOf(res)), store: query.store ?? true, transcribe: query.transcribe ?? false, requestId, signal },
  );
  res.json(validationJson(validation));
});
