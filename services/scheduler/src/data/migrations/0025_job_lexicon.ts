import type { Migration } from '@tts/common/data';

/**
 * The lexicon a job's request carried (JSON), so a queued job says words as they were defined when
 * it was submitted. Released inside the facade's migration 21; `IF NOT EXISTS` leaves a database
 * that ran that text as it is.
 */
export const migration: Migration = {
  version: 25,
  name: 'job_lexicon',
  sql: `
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS lexicon jsonb;
`,
};
