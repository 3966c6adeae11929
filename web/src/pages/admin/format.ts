/** How the administration pages name people (dates, counts and names: lib/format.ts). */
import type { StudioUser } from './admin-api.js';

/** The name to show for a studio user: username, else e-mail, else the kind and id. */
export function who(user: StudioUser | undefined, userId = ''): string {
  if (!user) return userId || 'unknown user';
  return user.username ?? user.email ?? `${user.kind} ${user.user_id}`;
}
