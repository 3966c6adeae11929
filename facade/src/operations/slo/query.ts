/**
 * The query parameters the SLO operations share (window_minutes, endpoint), checked again behind
 * the OpenAPI validator so a bad value is a 422, never a 500.
 */
import { TtsError } from '@tts/common';

/** Bounds of `window_minutes`: 5 minutes to 7 days, default 60. */
export const SLO_WINDOW = { min: 5, max: 10_080, default: 60 } as const;

/** Parsed SLO query. */
export interface SloQuery {
  readonly windowMinutes: number;
  /** "METHOD /path", or null for every endpoint. */
  readonly endpoint: string | null;
}

/** Reads window_minutes and endpoint; throws VALIDATION_FAILED (422). */
export function sloQuery(query: Record<string, unknown>): SloQuery {
  const raw = query['window_minutes'];
  const windowMinutes = raw === undefined || raw === '' ? SLO_WINDOW.default : typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(windowMinutes) || windowMinutes < SLO_WINDOW.min || windowMinutes > SLO_WINDOW.max) {
    throw new TtsError('VALIDATION_FAILED', `window_minutes must be an integer from ${SLO_WINDOW.min} to ${SLO_WINDOW.max}.`, { loc: ['query', 'window_minutes'] });
  }
  const e = query['endpoint'];
  const endpoint = typeof e === 'string' && e.trim() !== '' ? e.trim() : null;
  return { windowMinutes, endpoint };
}
