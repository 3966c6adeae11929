import type { Migration } from '@tts/common/data';

/** Consent audit: every synthesis request, its consent flag and outcome. Append-only. */
export const migration: Migration = {
  version: 5,
  name: 'consent_audit',
  sql: `
CREATE TABLE consent_audit (
  id                bigserial PRIMARY KEY,
  created_at        timestamptz NOT NULL DEFAULT now(),
  request_id        text,
  endpoint          text NOT NULL,
  mode              text,
  auth_method       text NOT NULL,
  key_id            text,
  consent_confirmed boolean,
  outcome           text NOT NULL CHECK (outcome IN ('ok', 'refused', 'error')),
  error_code        text
);
CREATE INDEX consent_audit_created_at_idx ON consent_audit (created_at);
CREATE TRIGGER consent_audit_append_only BEFORE UPDATE OR DELETE ON consent_audit
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER consent_audit_no_truncate BEFORE TRUNCATE ON consent_audit
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();
`,
};
