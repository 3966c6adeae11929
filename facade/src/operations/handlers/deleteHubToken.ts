import { handler } from '../../handler-context.js';

/** DELETE /api/hub/token (administrators): clears the application token. */
export const deleteHubToken = handler('deleteHubToken', ['hubToken'], async ({ res, deps }) => {
  const deleted = await deps.hubToken.clear();
  res.json({ ok: true, deleted, configured: false });
});
