/** The studio portal: accounts, sessions, presets and their lexicons, shares, VIP. */
import { approveStudioVipRequest } from './approveStudioVipRequest.js';
import { changeStudioPassword } from './changeStudioPassword.js';
import { createStudioGuest } from './createStudioGuest.js';
import { createStudioPreset } from './createStudioPreset.js';
import { createStudioShare } from './createStudioShare.js';
import { deleteStudioAccount } from './deleteStudioAccount.js';
import { deleteStudioPreset } from './deleteStudioPreset.js';
import { deleteStudioPresetLexiconEntry } from './deleteStudioPresetLexiconEntry.js';
import { forkStudioShare } from './forkStudioShare.js';
import { getStudioMe } from './getStudioMe.js';
import { getStudioPresetLexicon } from './getStudioPresetLexicon.js';
import { getStudioShare } from './getStudioShare.js';
import { getStudioVipInfo } from './getStudioVipInfo.js';
import { listStudioPresets } from './listStudioPresets.js';
import { listStudioShares } from './listStudioShares.js';
import { listStudioUsers } from './listStudioUsers.js';
import { listStudioVipRequests } from './listStudioVipRequests.js';
import { loginStudio } from './loginStudio.js';
import { logoutStudio } from './logoutStudio.js';
import { putStudioPresetLexiconEntry } from './putStudioPresetLexiconEntry.js';
import { registerStudioUser } from './registerStudioUser.js';
import { rejectStudioVipRequest } from './rejectStudioVipRequest.js';
import { replaceStudioPresetLexicon } from './replaceStudioPresetLexicon.js';
import { requestStudioVip } from './requestStudioVip.js';
import { revokeStudioShare } from './revokeStudioShare.js';
import { revokeStudioUserSessions } from './revokeStudioUserSessions.js';
import { submitStudioVipSlip } from './submitStudioVipSlip.js';
import { updateStudioPreset } from './updateStudioPreset.js';
import { updateStudioUser } from './updateStudioUser.js';

/** The handlers of this room, keyed by operationId. */
export const STUDIO_HANDLERS = {
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
  getStudioPresetLexicon,
  replaceStudioPresetLexicon,
  putStudioPresetLexiconEntry,
  deleteStudioPresetLexiconEntry,
} as const;
