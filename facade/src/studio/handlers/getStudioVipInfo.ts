import { studioCallerOf } from '../../middleware/access.js';
import { benefitsJson, planJson, vipRequestJson } from '../vip.js';
import { handler } from '../../handler-context.js';

/** GET /api/studio/vip/info: plans, benefits, how to pay, the caller's status and requests. */
export const getStudioVipInfo = handler('getStudioVipInfo', ['studio'], async ({ res, deps }) => {
  const info = await deps.studio.vip.info(studioCallerOf(res));
  res.json({
    plans: info.plans.map(planJson),
    benefits: benefitsJson(),
    payment: { method: 'bank_transfer_slip', provider: info.provider, automatic: info.provider !== null },
    status: { vip: info.vip, vip_until: info.user.vipUntil?.toISOString() ?? null, kind: info.user.kind },
    requests: info.requests.map((r) => vipRequestJson(r, false)),
  });
});
