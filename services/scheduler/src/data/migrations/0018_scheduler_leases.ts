import type { Migration } from '@tts/common/data';

/**
 * Several schedulers on one job table. Each running scheduler process holds a lease row
 * (`scheduler_leases`: its SCHEDULER_ID, a random incarnation id per process start, renewed well
 * before `expires_at`); `jobs.runner` names the incarnation running the job's current attempt. A
 * running job whose runner holds no live lease is abandoned and goes back to the queue; an
 * attempt's outcome is recorded only while the job is still running under the same runner and
 * attempt number (a fenced update), so a scheduler that lost its lease cannot overwrite what
 * another one decided since. Rows from before this migration have no runner and count as
 * abandoned once their scheduler restarts, as before.
 */
export const migration: Migration = {
  version: 18,
  name: 'scheduler_leases',
  sql: `
CREATE TABLE scheduler_leases (
  scheduler_id text PRIMARY KEY,
  incarnation  text NOT NULL UNIQUE,
  started_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
ALTER TABLE jobs ADD COLUMN runner text;
CREATE INDEX jobs_running_runner_idx ON jobs (runner) WHERE state = 'running';
`,
};
