import { transcriptionJson } from '../references.js';
import { uploadOf } from '../../middleware/uploads.js';
import { handler } from '../../handler-context.js';

/** POST /api/reference/transcribe (multipart, file `ref_audio`): speech recognition on an inference node. */
export const transcribeReference = handler('transcribeReference', ['references'], async ({ res, deps, requestId, signal }) => {
  const upload = uploadOf(res, 'ref_audio');
  const transcription = await deps.references.transcribe({ path: upload.path, filename: upload.filename, mimeType: upload.mimeType, sizeBytes: upload.sizeBytes }, requestId, signal);
  res.json(transcriptionJson(transcription));
});
