import type { Migration } from '@tts/common/data';

/**
 * Asynchronous synthesis jobs and their events. `jobs` holds the request, the state machine
 * (queued -> running -> completed | failed | cancelled, plus retrying), attempts, and the stored
 * result; `last_event_id` numbers the job's events so every transition can insert its event in the
 * same statement. `job_events` is the per-job history the polling and watch APIs read.
 */
export const migration: Migration = {
  version: 7,
  name: 'jobs',
  sql: `
CREATE TABLE jobs (
  job_id               text PRIMARY KEY,
  owner_id             text NOT NULL,
  owner_kind           text NOT NULL CHECK (owner_kind IN ('api_key', 'web')),
  tier                 text NOT NULL,
  priority             smallint NOT NULL CHECK (priority >= 0),
  request_id           text,
  state                text NOT NULL CHECK (state IN ('queued', 'running', 'retrying', 'completed', 'failed', 'cancelled')),
  progress             double precision NOT NULL DEFAULT 0 CHECK (progress >= 0 AND progress <= 1),
  attempts             integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts         integer NOT NULL CHECK (max_attempts >= 1),
  last_event_id        integer NOT NULL DEFAULT 0,
  text                 text NOT NULL,
  characters           integer NOT NULL CHECK (characters >= 0),
  voice                text NOT NULL,
  engine               text NOT NULL,
  speed                real NOT NULL,
  format               text NOT NULL,
  sample_rate          integer NOT NULL CHECK (sample_rate >= 0),
  language             text NOT NULL,
  mode                 text NOT NULL,
  consent_confirmed    boolean NOT NULL,
  instructions         text NOT NULL,
  raw_text             boolean NOT NULL,
  node_id              text,
  error_code           text,
  error_message        text,
  result_sha256        text CHECK (result_sha256 ~ '^[0-9a-f]{64}$'),
  result_path          text,
  result_bytes         bigint CHECK (result_bytes >= 0),
  result_audio_seconds double precision,
  result_format        text,
  result_sample_rate   integer,
  result_content_type  text,
  result_voice         text,
  result_engine        text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  started_at           timestamptz,
  finished_at          timestamptz,
  CHECK (state <> 'completed' OR result_sha256 IS NOT NULL)
);
CREATE INDEX jobs_owner_created_idx ON jobs (owner_id, created_at DESC, job_id);
CREATE INDEX jobs_unfinished_idx ON jobs (priority, created_at) WHERE state IN ('queued', 'running', 'retrying');

CREATE TABLE job_events (
  job_id   text NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE,
  event_id integer NOT NULL CHECK (event_id >= 1),
  at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  kind     text NOT NULL,
  payload  jsonb NOT NULL,
  PRIMARY KEY (job_id, event_id)
);
`,
};
