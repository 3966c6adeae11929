import type { Migration } from '@tts/common/data';

/** Job access audit: every read of a job's status or audio, allowed or denied. Append-only. */
export const migration: Migration = {
  version: 4,
  name: 'job_access_audit',
  sql: `
CREATE TABLE job_access_audit (
  id               bigserial PRIMARY KEY,
  created_at       timestamptz NOT NULL DEFAULT now(),
  request_id       text,
  endpoint         text NOT NULL,
  job_id           text NOT NULL,
  requester_kind   text NOT NULL CHECK (requester_kind IN ('api_key', 'job_token', 'admin', 'anonymous')),
  requester_key_id text,
  owner_key_id     text,
  allowed          boolean NOT NULL,
  reason           text NOT NULL
);
CREATE INDEX job_access_audit_created_at_idx ON job_access_audit (created_at);
CREATE TRIGGER job_access_audit_append_only BEFORE UPDATE OR DELETE ON job_access_audit
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER job_access_audit_no_truncate BEFORE TRUNCATE ON job_access_audit
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();
`,
};
