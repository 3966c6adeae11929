import { callerOf, enforcePublicRate } from '../../middleware/access.js';
import { issuedSessionJson } from '../accounts.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/auth/register: an account, or the calling guest turned into one. */
export const registerStudioUser = handler('registerStudioUser', ['access'], async ({ req, res, deps, body, requestId }) => {
  const caller = callerOf(res);
  if (caller.method !== 'studio') await enforcePublicRate(res, deps.access, `studio-register:${req.ip ?? ''}`);
  const issued = await deps.access.studio.register(body, caller.method === 'studio' ? caller.principal : undefined, requestId);
  res.status(201).json(issuedSessionJson(issued, new Date()));
});
