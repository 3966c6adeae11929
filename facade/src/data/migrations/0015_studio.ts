import type { Migration } from '@tts/common/data';

/**
 * The studio portal: users (guest or registered; deleted accounts are anonymized, not removed, so
 * their VIP requests and audits keep their subject), sessions (only the SHA-256 of a token is
 * stored), presets, share links of presets (token hashed), VIP requests (by payment slip or by
 * message; a slip's content hash and the provider's transaction id are each accepted once), and
 * one append-only audit of every VIP and account state change.
 */
export const migration: Migration = {
  version: 15,
  name: 'studio',
  sql: `
CREATE TABLE studio_users (
  user_id         text PRIMARY KEY,
  kind            text NOT NULL CHECK (kind IN ('guest', 'registered', 'deleted')),
  username        text,
  username_key    text UNIQUE,
  email           text,
  email_key       text UNIQUE,
  password_hash   text,
  role            text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
  vip_until       timestamptz,
  disabled        boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  last_login_at   timestamptz,
  deleted_at      timestamptz
);
CREATE INDEX studio_users_created_idx ON studio_users (created_at DESC);

CREATE TABLE studio_sessions (
  session_id      text PRIMARY KEY,
  token_sha256    text NOT NULL UNIQUE,
  user_id         text NOT NULL REFERENCES studio_users (user_id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_seen_at    timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  absolute_expires_at timestamptz NOT NULL
);
CREATE INDEX studio_sessions_user_idx ON studio_sessions (user_id);
CREATE INDEX studio_sessions_expiry_idx ON studio_sessions (expires_at);

CREATE TABLE studio_presets (
  preset_id       text PRIMARY KEY,
  user_id         text NOT NULL REFERENCES studio_users (user_id) ON DELETE CASCADE,
  name            text NOT NULL,
  voice           text,
  engine          text,
  speed           double precision,
  format          text,
  sample_text     text,
  notes           text,
  reference_id    text,
  forked_from_share_id  text,
  forked_from_preset_id text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX studio_presets_user_idx ON studio_presets (user_id, created_at DESC);

CREATE TABLE studio_shares (
  share_id        text PRIMARY KEY,
  token_sha256    text NOT NULL UNIQUE,
  preset_id       text NOT NULL REFERENCES studio_presets (preset_id) ON DELETE CASCADE,
  user_id         text NOT NULL REFERENCES studio_users (user_id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz,
  revoked_at      timestamptz,
  fork_count      integer NOT NULL DEFAULT 0
);
CREATE INDEX studio_shares_user_idx ON studio_shares (user_id, created_at DESC);

CREATE TABLE studio_vip_requests (
  request_id      text PRIMARY KEY,
  user_id         text NOT NULL REFERENCES studio_users (user_id),
  source          text NOT NULL CHECK (source IN ('slip', 'manual')),
  plan_id         text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending_review', 'approved', 'rejected')),
  reason          text NOT NULL,
  message         text,
  expected_amount numeric(12, 2),
  slip_sha256     text UNIQUE,
  provider        text,
  provider_verdict text,
  provider_code   integer,
  provider_message text,
  trans_ref       text UNIQUE,
  slip_amount     numeric(12, 2),
  vip_until       timestamptz,
  decided_by      text,
  decided_at      timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  request_ref     text
);
CREATE INDEX studio_vip_requests_status_idx ON studio_vip_requests (status, created_at DESC);
CREATE INDEX studio_vip_requests_user_idx ON studio_vip_requests (user_id, created_at DESC);

CREATE TABLE studio_audit (
  id              bigserial PRIMARY KEY,
  at              timestamptz NOT NULL DEFAULT clock_timestamp(),
  actor           text NOT NULL,
  user_id         text NOT NULL,
  action          text NOT NULL,
  vip_request_id  text,
  from_state      text,
  to_state        text,
  detail          jsonb,
  request_ref     text
);
CREATE INDEX studio_audit_user_idx ON studio_audit (user_id, id);
CREATE INDEX studio_audit_vip_idx ON studio_audit (vip_request_id, id);
CREATE TRIGGER studio_audit_append_only BEFORE UPDATE OR DELETE ON studio_audit
  FOR EACH ROW EXECUTE FUNCTION reject_append_only_mutation();
CREATE TRIGGER studio_audit_no_truncate BEFORE TRUNCATE ON studio_audit
  FOR EACH STATEMENT EXECUTE FUNCTION reject_append_only_mutation();
`,
};
