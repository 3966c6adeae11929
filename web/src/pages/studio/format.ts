/** How the studio pages write the API's VIP reason codes and statuses (dates and counts: lib/format.ts). */
import { words } from '../../lib/format.js';

/** The outcome of a VIP request in words (its `reason`). */
const REASONS: Readonly<Record<string, string>> = {
  slip_verified: 'the slip was verified',
  slip_fraud: 'the slip is not a genuine transfer',
  amount_mismatch: 'the amount does not match the plan price; an administrator will check it',
  wrong_receiver: 'the transfer went to another account; an administrator will check it',
  provider_reports_repeat: 'the bank reports this slip was used before; an administrator will check it',
  slip_unreadable: 'the slip could not be read; an administrator will check it',
  bank_unavailable: 'the bank could not be reached; an administrator will check it',
  provider_error: 'the slip check failed; an administrator will check it',
  provider_timeout: 'the slip check took too long; an administrator will check it',
  provider_not_configured: 'slips are checked by an administrator',
  manual_request: 'asked by message',
  admin_approved: 'approved by an administrator',
  admin_rejected: 'rejected by an administrator',
};

/** Why a VIP request is where it is, in words. */
export function reasonText(reason: string): string {
  return REASONS[reason] ?? words(reason);
}

/** A VIP request status in words. */
export function statusText(status: string): string {
  return status === 'pending_review' ? 'Pending review' : status === 'approved' ? 'Approved' : status === 'rejected' ? 'Rejected' : words(status);
}
