import { audioLogsView, collectAudioLogs } from '../domain/audio-logs.js';
import type { OperationHandler } from '../handler-context.js';

/** GET /api/debug/audio-logs: the nodes' recent audio pipeline events, newest first. */
export const getAudioLogs: OperationHandler<'getAudioLogs'> = async ({ res, deps }) => {
  res.json(audioLogsView(await collectAudioLogs(deps.cluster)));
};
