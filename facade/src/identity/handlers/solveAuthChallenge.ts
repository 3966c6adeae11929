import { passCookie, passView } from '../index.js';
import { enforcePublicRate } from '../../middleware/access.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/auth/challenge: redeems a solved challenge (form data) for an HttpOnly pass cookie,
 * Secure when the request came over HTTPS (directly, or per a trusted proxy's X-Forwarded-Proto) or
 * TTS_SECURE_COOKIES says so.
 */
export const solveAuthChallenge = handler('solveAuthChallenge', ['access', 'config'], async ({ req, body, res, deps }) => {
  await enforcePublicRate(res, deps.access, req.ip ?? '');
  const pass = await deps.access.challenge.redeem({ challenge: body.challenge, solution: body.solution }, req.get('user-agent') ?? '');
  res.setHeader('Set-Cookie', passCookie(pass, { secure: deps.config.secureCookies || req.secure }));
  res.json(passView(pass));
});
