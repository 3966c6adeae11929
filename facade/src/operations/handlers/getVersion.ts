import { SERVICE_NAME, VERSION } from '@tts/common';
import { handler } from '../../handler-context.js';

/** GET /api/system/version. */
export const getVersion = handler('getVersion', ['config', 'openapi'], async ({ res, deps }) => {
  const info = deps.openapi.document['info'] as { version?: string } | undefined;
  res.json({
    service: SERVICE_NAME,
    version: VERSION,
    api_version: info?.version ?? VERSION,
    openapi: String(deps.openapi.document['openapi'] ?? ''),
    node: process.version,
    commit: deps.config.gitCommit,
  });
});
