import { detectionJson, detectMark, requestsNamedBy } from '../provenance.js';
import { callerOf } from '../../middleware/access.js';
import { uploadOf } from '../../middleware/uploads.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/provenance/watermark/detect (multipart, file `audio`): whether the clip carries the
 * platform's watermark, with its payload and key id; administrators also get the request(s) the
 * payload names.
 */
export const detectWatermark = handler('detectWatermark', ['access', 'analysis'], async ({ res, deps, requestId, signal }) => {
  const upload = uploadOf(res, 'audio');
  const detection = await detectMark(deps.analysis, { path: upload.path }, { requestId, filename: upload.filename, contentType: upload.mimeType, sizeBytes: upload.sizeBytes }, signal);
  const admin = callerOf(res).method === 'admin';
  const origin = admin && detection.detected && detection.hasPayload ? await requestsNamedBy(deps.access.database, detection.payload) : admin ? [] : null;
  res.json(detectionJson(detection, origin));
});
