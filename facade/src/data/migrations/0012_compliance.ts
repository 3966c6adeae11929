import type { Migration } from '@tts/common/data';

/**
 * Compliance: acceptances of the versioned terms (per API key now; `subject_type` leaves room for
 * studio users), abuse reports with their review status, and the append-only audit of every status
 * change.
 */
export const migration: Migration = {
  version: 12,
  name: 'compliance',
  sql: `
CREATE TABLE terms_acceptances (
  id             bigserial PRIMARY KEY,
  subject_type   text NOT NULL CHECK (subject_type IN ('api_key', 'studio_user')),
  subject_id     text NOT NULL,
  terms_version  text NOT NULL,
  terms_sha256   text NOT NULL,
  accepted_at    timestamptz NOT NULL DEFAULT now(),
  request_id     text,
  UNIQUE (subject_type, subject_id, terms_version)
);
CREATE TRIGGER terms_acceptances_append_only BEFORE UPDATE OR DELETE ON terms_acceptances
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();

CREATE TABLE abuse_reports (
  report_id           text PRIMARY KEY,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  status              text NOT NULL CHECK (status IN ('open', 'reviewing', 'actioned', 'dismissed')),
  category            text NOT NULL,
  description         text NOT NULL,
  reporter_contact    text,
  reported_request_id text,
  evidence_url        text,
  sample_sha256       text,
  sample_bytes        integer,
  watermark           jsonb,
  linked_request_id   text,
  request_id          text
);
CREATE INDEX abuse_reports_status_idx ON abuse_reports (status, created_at DESC);

CREATE TABLE abuse_report_audit (
  id           bigserial PRIMARY KEY,
  report_id    text NOT NULL REFERENCES abuse_reports (report_id),
  at           timestamptz NOT NULL DEFAULT clock_timestamp(),
  actor        text NOT NULL,
  from_status  text,
  to_status    text NOT NULL,
  note         text
);
CREATE INDEX abuse_report_audit_report_idx ON abuse_report_audit (report_id, id);
CREATE TRIGGER abuse_report_audit_append_only BEFORE UPDATE OR DELETE ON abuse_report_audit
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER abuse_report_audit_no_truncate BEFORE TRUNCATE ON abuse_report_audit
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();
`,
};
