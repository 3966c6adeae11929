import { challengeView } from '../index.js';
import { enforcePublicRate } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/** GET /api/auth/challenge: a fresh proof-of-work challenge. */
export const getAuthChallenge = handler('getAuthChallenge', ['access'], async ({ req, res, deps }) => {
  await enforcePublicRate(res, deps.access, req.ip ?? '');
  res.json(challengeView(deps.access.challenge.issue()));
});
