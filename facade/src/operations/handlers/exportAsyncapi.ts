import { handler } from '../../handler-context.js';

/** GET /api/asyncapi/export: the speech WebSocket's description (AsyncAPI 3) as JSON or YAML, optionally as a download. */
export const exportAsyncapi = handler('exportAsyncapi', ['asyncapi'], async ({ query, res, deps }) => {
  const format = query.format ?? 'yaml';
  if (query.download === true) res.setHeader('Content-Disposition', `attachment; filename="asyncapi.${format}"`);
  if (format === 'yaml') res.status(200).type('application/yaml').send(deps.asyncapi.yaml);
  else res.status(200).type('application/json').send(deps.asyncapi.json);
});
