/** Operations: health, version, system info, capabilities, docs, retention, logs, SLOs, the model-hub token. */
import { classifyError } from './classifyError.js';
import { deleteHubToken } from './deleteHubToken.js';
import { exportAsyncapi } from './exportAsyncapi.js';
import { exportOpenapi } from './exportOpenapi.js';
import { getAudioLogs } from './getAudioLogs.js';
import { getCapabilities } from './getCapabilities.js';
import { getCleanupConfig } from './getCleanupConfig.js';
import { getErrorDocs } from './getErrorDocs.js';
import { getHealth } from './getHealth.js';
import { getHubTokenStatus } from './getHubTokenStatus.js';
import { getQuickstart } from './getQuickstart.js';
import { getSloAlerts } from './getSloAlerts.js';
import { getSloDashboard } from './getSloDashboard.js';
import { getSystemInfo } from './getSystemInfo.js';
import { getVersion } from './getVersion.js';
import { getWebSystemStatus } from './getWebSystemStatus.js';
import { runCleanup } from './runCleanup.js';
import { setHubToken } from './setHubToken.js';
import { streamLogs } from './streamLogs.js';
import { validateHubToken } from './validateHubToken.js';

/** The handlers of this room, keyed by operationId. */
export const OPERATIONS_HANDLERS = {
  getHubTokenStatus,
  setHubToken,
  deleteHubToken,
  validateHubToken,
  getWebSystemStatus,
  classifyError,
  exportOpenapi,
  exportAsyncapi,
  getCapabilities,
  getErrorDocs,
  getHealth,
  getQuickstart,
  getVersion,
  getSystemInfo,
  getCleanupConfig,
  runCleanup,
  getAudioLogs,
  streamLogs,
  getSloDashboard,
  getSloAlerts,
} as const;
