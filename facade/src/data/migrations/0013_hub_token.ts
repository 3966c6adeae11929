import type { Migration } from '@tts/common/data';

/**
 * The application's model-hub token, encrypted at rest (AES-256-GCM; the key is not in the
 * database), with what the last validation found. One row at most.
 */
export const migration: Migration = {
  version: 13,
  name: 'hub_token',
  sql: `
CREATE TABLE hub_token (
  id               text PRIMARY KEY CHECK (id = 'app'),
  ciphertext       text NOT NULL,
  iv               text NOT NULL,
  tag              text NOT NULL,
  key_fingerprint  text NOT NULL,
  last4            text NOT NULL,
  prefix           text NOT NULL,
  set_at           timestamptz NOT NULL DEFAULT now(),
  validated_at     timestamptz,
  valid            boolean,
  account          text,
  error_code       text
);
`,
};
