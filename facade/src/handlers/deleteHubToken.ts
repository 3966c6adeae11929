import type { OperationHandler } from '../handler-context.js';

/** DELETE /api/hub/token (administrators): clears the application token. */
export const deleteHubToken: OperationHandler<'deleteHubToken'> = async ({ res, deps }) => {
  const deleted = await deps.hubToken.clear();
  res.json({ ok: true, deleted, configured: false });
};
