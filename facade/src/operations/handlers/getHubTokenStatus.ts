import { hubStatusJson } from '../hub-token.js';
import { handler } from '../../handler-context.js';

/** GET /api/hub/token/status (administrators): whether a token is set (masked), optionally validated now. */
export const getHubTokenStatus = handler('getHubTokenStatus', ['config', 'hubToken'], async ({ query, res, deps }) => {
  const status = await deps.hubToken.status(query.validate ?? false, (query.timeout_sec ?? 6) * 1000);
  res.json(hubStatusJson(status, deps.config.hubUrl));
});
