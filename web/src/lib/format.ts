/** How every page writes the API's dates, counts and names for a reader. */

/** A date-time of the API in the reader's locale; a dash when there is none. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A date of the API (no time) in the reader's locale; a dash when there is none. */
export function day(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString();
}

/** A whole number with the reader's grouping; a dash for none. */
export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString();
}

/** Words of an API name or status (`pending_review` -> `pending review`). */
export function words(name: string): string {
  return name.replace(/_/g, ' ');
}
