import type { OperationHandler } from '../operation.js';

/** GET /api/openapi/export: the interface description as JSON or YAML, optionally as a download. */
export const exportOpenapi: OperationHandler = async ({ req, res, deps }) => {
  const format = req.query['format'] === 'yaml' ? 'yaml' : 'json';
  const raw: unknown = req.query['download'];
  const download = raw === true || raw === 'true';
  if (download) res.setHeader('Content-Disposition', `attachment; filename="openapi.${format}"`);
  if (format === 'yaml') res.status(200).type('application/yaml').send(deps.openapi.yaml);
  else res.status(200).type('application/json').send(deps.openapi.json);
};
