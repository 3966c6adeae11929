import type { Migration } from '@tts/common/data';

/**
 * The audio of jobs, for usage: a job is synthesized after the request that submitted it was
 * metered (with no audio yet), maybe by a scheduler on another database. Its submission leaves a
 * row here (job id, audio_seconds NULL); a facade fills in the seconds the node reported once the
 * scheduler says the job ended (0 when it failed or was cancelled). The usage views add them to
 * the submitting request's usage event.
 */
export const migration: Migration = {
  version: 23,
  name: 'job_usage',
  sql: `
CREATE TABLE job_usage (
  request_id    text PRIMARY KEY,
  job_id        text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  audio_seconds double precision CHECK (audio_seconds >= 0),
  settled_at    timestamptz
);
CREATE INDEX job_usage_pending_idx ON job_usage (created_at) WHERE settled_at IS NULL;
`,
};
