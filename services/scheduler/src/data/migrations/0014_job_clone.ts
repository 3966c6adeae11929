import type { Migration } from '@tts/common/data';

/**
 * Clone jobs: the reference clip a job clones (base64, as uploaded or stored) and what cloning
 * chose and measured (the node's CloneReport as JSON).
 */
export const migration: Migration = {
  version: 14,
  name: 'job_clone',
  sql: `
ALTER TABLE jobs ADD COLUMN clone_reference text;
ALTER TABLE jobs ADD COLUMN clone_filename text;
ALTER TABLE jobs ADD COLUMN clone_reference_id text;
ALTER TABLE jobs ADD COLUMN result_clone jsonb;
`,
};
