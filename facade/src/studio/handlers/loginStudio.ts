import { enforcePublicRate } from '../../middleware/access.js';
import { issuedSessionJson } from '../accounts.js';
import { handler } from '../../handler-context.js';

/** POST /api/studio/auth/login: a new session for a username or email and password (throttled). */
export const loginStudio = handler('loginStudio', ['access'], async ({ req, res, deps, body, requestId }) => {
  await enforcePublicRate(res, deps.access, `studio-login:${req.ip ?? ''}`);
  const issued = await deps.access.studio.login(body.login, body.password, req.ip ?? '', requestId);
  res.json(issuedSessionJson(issued, new Date()));
});
