import { audioLogsView, collectAudioLogs } from '../audio-logs.js';
import { handler } from '../../handler-context.js';

/** GET /api/debug/audio-logs: the nodes' recent audio pipeline events, newest first. */
export const getAudioLogs = handler('getAudioLogs', ['cluster'], async ({ res, deps }) => {
  res.json(audioLogsView(await collectAudioLogs(deps.cluster)));
});
