/**
 * Which answers count against availability. Server failures (5xx) and overload do: the platform
 * failed the caller. Client errors (4xx) do not, and neither do the caller's own rate limit and
 * quota (429): those are the platform working as configured.
 */
import { ERROR_CATALOGUE, isErrorCode } from '@tts/common';

/** Codes of overload: errors whatever their status (429 or 503). */
export const OVERLOAD_CODES: ReadonlySet<string> = new Set(['TTS_OVERLOADED', 'TTS_NODE_OVERLOADED', 'TTS_NO_NODE_AVAILABLE']);

/** Status recorded for a request whose client went away before the answer ended. */
export const CLIENT_CLOSED_STATUS = 499;

/** True when an answer with `status` (and catalogue `code`, if any) is a failure of the service. */
export function isServiceFailure(status: number, code: string | undefined): boolean {
  if (code !== undefined && OVERLOAD_CODES.has(code)) return true;
  if (status === 429) return false;
  return status >= 500;
}

/** The status to record for a response that ended with `code` after its headers were sent (or never sent). */
export function statusOfCode(code: string | undefined, fallback: number): number {
  return code !== undefined && isErrorCode(code) ? ERROR_CATALOGUE[code].http : fallback;
}
