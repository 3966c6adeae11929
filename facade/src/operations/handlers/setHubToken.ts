import { hubStatusJson } from '../hub-token.js';
import { handler } from '../../handler-context.js';

/** POST /api/hub/token (administrators): stores the token encrypted, after the hub accepts it unless `validate` is false. */
export const setHubToken = handler('setHubToken', ['config', 'hubToken'], async ({ body, res, deps }) => {
  const status = await deps.hubToken.set(body.token, body.validate ?? true, (body.timeout_sec ?? 6) * 1000);
  res.json(hubStatusJson(status, deps.config.hubUrl));
});
