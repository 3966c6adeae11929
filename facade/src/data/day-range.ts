/**
 * The SQL condition for an inclusive range of UTC days on `created_at`. Placeholders `$1` (first
 * day) and `$2` (last day) are `YYYY-MM-DD` strings or null for an open side.
 */
export const DAY_RANGE_SQL = `($1::date IS NULL OR created_at >= ($1::date)::timestamp AT TIME ZONE 'UTC')
  AND ($2::date IS NULL OR created_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC')`;
