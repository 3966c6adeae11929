import type { Migration } from '@tts/common/data';

/**
 * Usage: one append-only row per request that reached synthesis, and a per-key, per-day rollup of
 * successful characters (updated in the same transaction) that quota checks read.
 */
export const migration: Migration = {
  version: 3,
  name: 'usage',
  sql: `
CREATE TABLE usage_events (
  id            bigserial PRIMARY KEY,
  created_at    timestamptz NOT NULL DEFAULT now(),
  request_id    text,
  key_id        text,
  auth_method   text NOT NULL,
  endpoint      text NOT NULL,
  tier          text,
  characters    integer NOT NULL CHECK (characters >= 0),
  audio_seconds double precision NOT NULL CHECK (audio_seconds >= 0),
  status        text NOT NULL CHECK (status IN ('ok', 'error')),
  http_status   integer NOT NULL,
  error_code    text,
  latency_ms    double precision NOT NULL CHECK (latency_ms >= 0),
  quota_stage   text CHECK (quota_stage IN ('ok', 'warning', 'soft_limit', 'hard_block'))
);
CREATE INDEX usage_events_created_at_idx ON usage_events (created_at);
CREATE INDEX usage_events_key_created_at_idx ON usage_events (key_id, created_at);
CREATE TRIGGER usage_events_append_only BEFORE UPDATE OR DELETE ON usage_events
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER usage_events_no_truncate BEFORE TRUNCATE ON usage_events
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();

CREATE TABLE usage_daily (
  key_id        text NOT NULL,
  day           date NOT NULL,
  characters    bigint NOT NULL DEFAULT 0,
  audio_seconds double precision NOT NULL DEFAULT 0,
  requests      integer NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day)
);
`,
};
