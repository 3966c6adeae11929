import { studioUserJson } from '../accounts.js';
import { handler } from '../../handler-context.js';

/** GET /api/studio/admin/users: studio users (administrators). */
export const listStudioUsers = handler('listStudioUsers', ['access'], async ({ res, deps, query }) => {
  const users = await deps.access.studio.listUsers(query.limit ?? 200);
  const now = new Date();
  res.json({ object: 'list', data: users.map((u) => studioUserJson(u, now, true)) });
});
