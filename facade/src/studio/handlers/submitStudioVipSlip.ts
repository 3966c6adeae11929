import { studioCallerOf } from '../../middleware/access.js';
import { uploadOf } from '../../middleware/uploads.js';
import { vipRequestJson } from '../vip.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/vip/slip: a payment slip, verified by the provider, following the state table. */
export const submitStudioVipSlip = handler('submitStudioVipSlip', ['studio'], async ({ res, deps, body, requestId, signal }) => {
  const slip = uploadOf(res, 'slip');
  const request = await deps.studio.vip.submitSlip(studioCallerOf(res), body.plan_id, { path: slip.path, filename: slip.filename, contentType: slip.mimeType }, requestId, signal);
  res.status(201).json(vipRequestJson(request, false));
});
