import { validationJson } from '../hub-token.js';
import { handler } from '../../handler-context.js';

/**
 * POST /api/hub/token/validate (administrators): asks the hub whether a token (the one sent, or
 * the stored one) is valid. The check's outcome is the answer (200), also when the hub refuses.
 */
export const validateHubToken = handler('validateHubToken', ['config', 'hubToken'], async ({ body, res, deps }) => {
  const result = await deps.hubToken.validate(body.token, (body.timeout_sec ?? 6) * 1000);
  res.json({ ...validationJson(result.validation), masked: result.masked, stored: result.stored, hub_url: deps.config.hubUrl });
});
