import type { Migration } from '@tts/common/data';

/**
 * The provenance payload a job's submitting request chose, so whichever scheduler runs it marks
 * its audio alike; NULL for jobs from before. Released inside the facade's migration 22;
 * `IF NOT EXISTS` leaves a database that ran that text as it is.
 */
export const migration: Migration = {
  version: 26,
  name: 'job_watermark_payload',
  sql: `
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS watermark_payload bigint;
`,
};
