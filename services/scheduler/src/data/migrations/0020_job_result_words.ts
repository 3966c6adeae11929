import type { Migration } from '@tts/common/data';

/**
 * Word timings of a completed job: where each word of its text is in its audio, as the node
 * reported them (a JSON array of `{ word, start, end }`, seconds); null for a job completed before
 * this version or whose engine reports none. Captions are built from them.
 */
export const migration: Migration = {
  version: 20,
  name: 'job_result_words',
  sql: `
ALTER TABLE jobs ADD COLUMN result_words jsonb;
`,
};
