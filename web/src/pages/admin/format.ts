/** How the administration pages write times, people and amounts. */
import type { StudioUser } from './admin-api.js';

/** A date-time of the API in the reader's locale; a dash when there is none. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** The name to show for a studio user: username, else e-mail, else the kind and id. */
export function who(user: StudioUser | undefined, userId = ''): string {
  if (!user) return userId || 'unknown user';
  return user.username ?? user.email ?? `${user.kind} ${user.user_id}`;
}

/** A whole number with the reader's grouping; a dash for none. */
export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString();
}

/** Words of an API status (`pending_review` -> `pending review`). */
export function words(status: string): string {
  return status.replace(/_/g, ' ');
}
