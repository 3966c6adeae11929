/**
 * The table of operation handlers, keyed by the OpenAPI operationId. The compiler checks that every
 * documented operation has a handler of its own request types; routes are registered from the
 * OpenAPI document, and start-up also fails if the table and the document disagree.
 */
import type { OperationHandler, OperationId } from './handler-context.js';
import { submitJob } from './handlers/submitJob.js';
import { validateReference } from './handlers/validateReference.js';
import { transcribeReference } from './handlers/transcribeReference.js';
import { listReferences } from './handlers/listReferences.js';
import { getReference } from './handlers/getReference.js';
import { deleteReference } from './handlers/deleteReference.js';
import { detectWatermark } from './handlers/detectWatermark.js';
import { getComplianceTerms } from './handlers/getComplianceTerms.js';
import { acceptComplianceTerms } from './handlers/acceptComplianceTerms.js';
import { createAbuseReport } from './handlers/createAbuseReport.js';
import { listAbuseReports } from './handlers/listAbuseReports.js';
import { getAbuseReport } from './handlers/getAbuseReport.js';
import { updateAbuseReportStatus } from './handlers/updateAbuseReportStatus.js';
import { getHubTokenStatus } from './handlers/getHubTokenStatus.js';
import { setHubToken } from './handlers/setHubToken.js';
import { deleteHubToken } from './handlers/deleteHubToken.js';
import { validateHubToken } from './handlers/validateHubToken.js';
import { getJob } from './handlers/getJob.js';
import { getJobAudio } from './handlers/getJobAudio.js';
import { submitWebJob } from './handlers/submitWebJob.js';
import { listWebJobs } from './handlers/listWebJobs.js';
import { getWebJob } from './handlers/getWebJob.js';
import { listWebJobEvents } from './handlers/listWebJobEvents.js';
import { getWebJobAudio } from './handlers/getWebJobAudio.js';
import { getWebConfig } from './handlers/getWebConfig.js';
import { getWebSystemStatus } from './handlers/getWebSystemStatus.js';
import { classifyError } from './handlers/classifyError.js';
import { createSpeech } from './handlers/createSpeech.js';
import { exportOpenapi } from './handlers/exportOpenapi.js';
import { getCapabilities } from './handlers/getCapabilities.js';
import { getErrorDocs } from './handlers/getErrorDocs.js';
import { getHealth } from './handlers/getHealth.js';
import { getQuickstart } from './handlers/getQuickstart.js';
import { getVersion } from './handlers/getVersion.js';
import { listEngines } from './handlers/listEngines.js';
import { listModels } from './handlers/listModels.js';
import { retrieveModel } from './handlers/retrieveModel.js';
import { listVoices } from './handlers/listVoices.js';
import { ttsSynthesize } from './handlers/ttsSynthesize.js';
import { getAuthConfig } from './handlers/getAuthConfig.js';
import { listTiers } from './handlers/listTiers.js';
import { getAuthChallenge } from './handlers/getAuthChallenge.js';
import { solveAuthChallenge } from './handlers/solveAuthChallenge.js';
import { listApiKeys } from './handlers/listApiKeys.js';
import { createApiKey } from './handlers/createApiKey.js';
import { updateApiKey } from './handlers/updateApiKey.js';
import { getUsageSummary } from './handlers/getUsageSummary.js';
import { getCostDashboard } from './handlers/getCostDashboard.js';
import { getJobAccessAudit } from './handlers/getJobAccessAudit.js';
import { getConsentAudit } from './handlers/getConsentAudit.js';
import { getSystemInfo } from './handlers/getSystemInfo.js';
import { getCleanupConfig } from './handlers/getCleanupConfig.js';
import { runCleanup } from './handlers/runCleanup.js';
import { getAudioLogs } from './handlers/getAudioLogs.js';
import { streamLogs } from './handlers/streamLogs.js';
import { getSloDashboard } from './handlers/getSloDashboard.js';
import { getSloAlerts } from './handlers/getSloAlerts.js';
import { createStudioGuest } from './handlers/createStudioGuest.js';
import { registerStudioUser } from './handlers/registerStudioUser.js';
import { loginStudio } from './handlers/loginStudio.js';
import { logoutStudio } from './handlers/logoutStudio.js';
import { getStudioMe } from './handlers/getStudioMe.js';
import { deleteStudioAccount } from './handlers/deleteStudioAccount.js';
import { changeStudioPassword } from './handlers/changeStudioPassword.js';
import { getStudioVipInfo } from './handlers/getStudioVipInfo.js';
import { submitStudioVipSlip } from './handlers/submitStudioVipSlip.js';
import { requestStudioVip } from './handlers/requestStudioVip.js';
import { listStudioPresets } from './handlers/listStudioPresets.js';
import { createStudioPreset } from './handlers/createStudioPreset.js';
import { updateStudioPreset } from './handlers/updateStudioPreset.js';
import { deleteStudioPreset } from './handlers/deleteStudioPreset.js';
import { listStudioShares } from './handlers/listStudioShares.js';
import { createStudioShare } from './handlers/createStudioShare.js';
import { revokeStudioShare } from './handlers/revokeStudioShare.js';
import { getStudioShare } from './handlers/getStudioShare.js';
import { forkStudioShare } from './handlers/forkStudioShare.js';
import { listStudioVipRequests } from './handlers/listStudioVipRequests.js';
import { approveStudioVipRequest } from './handlers/approveStudioVipRequest.js';
import { rejectStudioVipRequest } from './handlers/rejectStudioVipRequest.js';
import { listStudioUsers } from './handlers/listStudioUsers.js';
import { updateStudioUser } from './handlers/updateStudioUser.js';
import { revokeStudioUserSessions } from './handlers/revokeStudioUserSessions.js';
import { getJobCaptions } from './handlers/getJobCaptions.js';
import { getWebJobCaptions } from './handlers/getWebJobCaptions.js';
import { getLexicon } from './handlers/getLexicon.js';
import { replaceLexicon } from './handlers/replaceLexicon.js';
import { putLexiconEntry } from './handlers/putLexiconEntry.js';
import { deleteLexiconEntry } from './handlers/deleteLexiconEntry.js';
import { getStudioPresetLexicon } from './handlers/getStudioPresetLexicon.js';
import { replaceStudioPresetLexicon } from './handlers/replaceStudioPresetLexicon.js';
import { putStudioPresetLexiconEntry } from './handlers/putStudioPresetLexiconEntry.js';
import { deleteStudioPresetLexiconEntry } from './handlers/deleteStudioPresetLexiconEntry.js';

export const OPERATIONS = {
  ttsSynthesize,
  createSpeech,
  listModels,
  retrieveModel,
  listVoices,
  getHealth,
  getCapabilities,
  listEngines,
  getVersion,
  getQuickstart,
  exportOpenapi,
  getErrorDocs,
  classifyError,
  getAuthConfig,
  listTiers,
  getAuthChallenge,
  solveAuthChallenge,
  listApiKeys,
  createApiKey,
  updateApiKey,
  getUsageSummary,
  getCostDashboard,
  getJobAccessAudit,
  getConsentAudit,
  getSystemInfo,
  getCleanupConfig,
  runCleanup,
  getAudioLogs,
  streamLogs,
  getSloDashboard,
  getSloAlerts,
  submitJob,
  getJob,
  getJobAudio,
  validateReference,
  transcribeReference,
  listReferences,
  getReference,
  deleteReference,
  detectWatermark,
  getComplianceTerms,
  acceptComplianceTerms,
  createAbuseReport,
  listAbuseReports,
  getAbuseReport,
  updateAbuseReportStatus,
  getHubTokenStatus,
  setHubToken,
  deleteHubToken,
  validateHubToken,
  submitWebJob,
  listWebJobs,
  getWebJob,
  listWebJobEvents,
  getWebJobAudio,
  getWebConfig,
  getWebSystemStatus,
  createStudioGuest,
  registerStudioUser,
  loginStudio,
  logoutStudio,
  getStudioMe,
  deleteStudioAccount,
  changeStudioPassword,
  getStudioVipInfo,
  submitStudioVipSlip,
  requestStudioVip,
  listStudioPresets,
  createStudioPreset,
  updateStudioPreset,
  deleteStudioPreset,
  listStudioShares,
  createStudioShare,
  revokeStudioShare,
  getStudioShare,
  forkStudioShare,
  listStudioVipRequests,
  approveStudioVipRequest,
  rejectStudioVipRequest,
  listStudioUsers,
  updateStudioUser,
  revokeStudioUserSessions,
  getJobCaptions,
  getWebJobCaptions,
  getLexicon,
  replaceLexicon,
  putLexiconEntry,
  deleteLexiconEntry,
  getStudioPresetLexicon,
  replaceStudioPresetLexicon,
  putStudioPresetLexiconEntry,
  deleteStudioPresetLexiconEntry,
} as const satisfies { readonly [Id in OperationId]: OperationHandler<Id> };
