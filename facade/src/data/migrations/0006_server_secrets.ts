import type { Migration } from '@tts/common/data';

/**
 * Server secrets shared by every replica (e.g. the HMAC key that signs challenges and challenge
 * cookies when no environment variable provides one). Created once, never rotated in place.
 */
export const migration: Migration = {
  version: 6,
  name: 'server_secrets',
  sql: `
CREATE TABLE server_secrets (
  name       text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
};
