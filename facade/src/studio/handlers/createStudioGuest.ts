import { enforcePublicRate } from '../../middleware/access.js';
import { issuedSessionJson } from '../accounts.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/auth/guest: a guest account and its session (public rate per address). */
export const createStudioGuest = handler('createStudioGuest', ['access'], async ({ req, res, deps, requestId }) => {
  await enforcePublicRate(res, deps.access, `studio-guest:${req.ip ?? ''}`);
  const issued = await deps.access.studio.guest(requestId);
  res.status(201).json(issuedSessionJson(issued, new Date()));
});
