import type { Migration } from '@tts/common/data';

/** API keys: public id and prefix, SHA-256 of the full key (never the key), tier and overrides. */
export const migration: Migration = {
  version: 2,
  name: 'api_keys',
  sql: `
CREATE TABLE api_keys (
  key_id             text PRIMARY KEY,
  prefix             text NOT NULL,
  secret_hash        text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
  name               text NOT NULL,
  tier               text NOT NULL,
  disabled           boolean NOT NULL DEFAULT false,
  daily_char_quota   bigint CHECK (daily_char_quota >= 0),
  monthly_char_quota bigint CHECK (monthly_char_quota >= 0),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
`,
};
