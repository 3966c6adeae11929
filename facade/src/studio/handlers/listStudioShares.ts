import { studioCallerOf } from '../../middleware/access.js';
import { shareJson } from '../presets.js';
import { handler } from '../../handler-context.js';

/** GET /api/studio/shares: the caller's shares, without their tokens. */
export const listStudioShares = handler('listStudioShares', ['studio'], async ({ res, deps, query }) => {
  const shares = await deps.studio.presets.shares(studioCallerOf(res), query.limit ?? 200);
  const now = new Date();
  res.json({ object: 'list', data: shares.map((s) => shareJson(s, now)) });
});
