import type { Migration } from '@tts/common/data';

/**
 * Studio usernames that look alike are one name: each username's UTS #39 skeleton (computed by the
 * facade, `studio/usernames.ts`) is stored and unique. Rows from before are filled in by the facade
 * at start (the skeleton needs the Unicode confusables table, which SQL does not have).
 */
export const migration: Migration = {
  version: 24,
  name: 'studio_username_skeleton',
  sql: `
ALTER TABLE studio_users ADD COLUMN username_skeleton text;
CREATE UNIQUE INDEX studio_users_username_skeleton_key ON studio_users (username_skeleton);
`,
};
