import type { Migration } from '@tts/common/data';

/**
 * Reference clips for voice cloning, stored by POST /api/reference/validate for reuse by their
 * reference_id: owner-scoped (the API key that uploaded them), deleted by their owner or when
 * `expires_at` passes (the cleanup run). The original bytes are kept, with the node's analysis.
 */
export const migration: Migration = {
  version: 11,
  name: 'reference_audio',
  sql: `
CREATE TABLE reference_audio (
  reference_id  text PRIMARY KEY,
  owner_key_id  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  filename      text NOT NULL,
  suffix        text NOT NULL,
  content_type  text NOT NULL,
  size_bytes    integer NOT NULL CHECK (size_bytes > 0),
  sha256        text NOT NULL,
  duration_sec  double precision NOT NULL,
  sample_rate   integer NOT NULL,
  channels      integer NOT NULL,
  passed        boolean NOT NULL,
  analysis      jsonb NOT NULL,
  audio         bytea NOT NULL
);
CREATE INDEX reference_audio_owner_idx ON reference_audio (owner_key_id, created_at DESC);
CREATE INDEX reference_audio_expires_idx ON reference_audio (expires_at);
`,
};
