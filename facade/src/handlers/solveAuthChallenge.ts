import { passCookie, passView } from '../identity/index.js';
import { enforcePublicRate } from '../middleware/access.js';
import type { OperationHandler } from '../handler-context.js';

/** POST /api/auth/challenge: redeems a solved challenge (form data) for an HttpOnly pass cookie. */
export const solveAuthChallenge: OperationHandler<'solveAuthChallenge'> = async ({ req, body, res, deps }) => {
  await enforcePublicRate(res, deps.access, req.ip ?? '');
  const pass = await deps.access.challenge.redeem({ challenge: body.challenge, solution: body.solution }, req.get('user-agent') ?? '');
  res.setHeader('Set-Cookie', passCookie(pass, { secure: deps.config.secureCookies }));
  res.setHeader('Cache-Control', 'no-store');
  res.json(passView(pass));
};
