import type { Migration } from '@tts/common/data';

/**
 * Studio jobs: web jobs submitted with a studio session are owned by the studio user (owner kind
 * `studio`), so their listing is scoped to the user across sessions.
 */
export const migration: Migration = {
  version: 16,
  name: 'studio_jobs',
  sql: `
ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_owner_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_owner_kind_check CHECK (owner_kind IN ('api_key', 'web', 'studio'));
`,
};
