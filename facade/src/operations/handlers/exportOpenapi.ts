import { handler } from '../../handler-context.js';

/** GET /api/openapi/export: the interface description as JSON or YAML, optionally as a download. */
export const exportOpenapi = handler('exportOpenapi', ['openapi'], async ({ query, res, deps }) => {
  const format = query.format ?? 'json';
  if (query.download === true) res.setHeader('Content-Disposition', `attachment; filename="openapi.${format}"`);
  if (format === 'yaml') res.status(200).type('application/yaml').send(deps.openapi.yaml);
  else res.status(200).type('application/json').send(deps.openapi.json);
});
