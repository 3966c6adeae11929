import type { Migration } from '@tts/common/data';

/**
 * Aggregated denials in the job access audit: `attempts` is how many requests a record stands for
 * (repeated job-token denials of one client address and job within a window are one record), and
 * `client_address` the address they came from. Existing records stand for one request each.
 */
export const migration: Migration = {
  version: 19,
  name: 'job_access_attempts',
  sql: `
ALTER TABLE job_access_audit ADD COLUMN attempts integer NOT NULL DEFAULT 1 CHECK (attempts >= 1);
ALTER TABLE job_access_audit ADD COLUMN client_address text;
`,
};
