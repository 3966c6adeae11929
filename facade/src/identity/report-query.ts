/**
 * Validation of the report query parameters (usage summary, cost dashboard, audits), as a second
 * line behind the OpenAPI validator: every bad value becomes a stable 4xx code, never a 500.
 * Values may arrive as strings (raw query) or already coerced (numbers, booleans).
 */
import type { DayRange } from '../data/index.js';
import { TtsError } from '@tts/common';

/** Bounds of a `limit` parameter. */
export interface LimitBounds {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/** The bounds of every report: 1 to 5000, default 500. */
export const REPORT_LIMIT: LimitBounds = { min: 1, max: 5000, default: 500 };

/** Longest accepted free-text filter (key_id, endpoint, tier, mode...). */
export const MAX_FILTER_LENGTH = 200;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days in `month` (1-12) of `year`, for any year 1..9999 (Date.UTC would map 0..99 to 19xx). */
function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}

/**
 * A `YYYY-MM-DD` day parameter (a real calendar date, years 0001 to 9999), or null when absent or
 * empty. Throws USAGE_DATE_INVALID (422) otherwise.
 */
export function parseDay(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  const m = typeof value === 'string' ? DAY.exec(value) : null;
  if (m !== null) {
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)) return m[0];
  }
  throw new TtsError('USAGE_DATE_INVALID', `${field} must be a calendar date as YYYY-MM-DD.`, { loc: ['query', field] });
}

/** `day_from` and `day_to`; throws USAGE_DATE_INVALID or USAGE_DATE_RANGE_INVALID (422). */
export function parseDayRange(query: { readonly day_from?: unknown; readonly day_to?: unknown }): DayRange {
  const dayFrom = parseDay(query.day_from, 'day_from');
  const dayTo = parseDay(query.day_to, 'day_to');
  // ISO dates compare correctly as strings.
  if (dayFrom !== null && dayTo !== null && dayFrom > dayTo) {
    throw new TtsError('USAGE_DATE_RANGE_INVALID', `day_from (${dayFrom}) is after day_to (${dayTo}).`, { loc: ['query', 'day_from'] });
  }
  return { dayFrom, dayTo };
}

/** A `limit` parameter within bounds (the default when absent); throws VALIDATION_FAILED (422). */
export function parseLimit(value: unknown, bounds: LimitBounds = REPORT_LIMIT): number {
  if (value === undefined || value === null || value === '') return bounds.default;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < bounds.min || n > bounds.max) {
    throw new TtsError('VALIDATION_FAILED', `limit must be an integer from ${bounds.min} to ${bounds.max}.`, { loc: ['query', 'limit'] });
  }
  return n;
}

/** A boolean flag (true/false, 1/0; false when absent); throws VALIDATION_FAILED (422). */
export function parseFlag(value: unknown, field: string): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw new TtsError('VALIDATION_FAILED', `${field} must be true or false.`, { loc: ['query', field] });
}

/** An optional exact-match filter (null when absent or empty); throws VALIDATION_FAILED (422). */
export function parseFilter(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > MAX_FILTER_LENGTH) {
    throw new TtsError('VALIDATION_FAILED', `${field} must be a string of at most ${MAX_FILTER_LENGTH} characters.`, { loc: ['query', field] });
  }
  return value;
}
