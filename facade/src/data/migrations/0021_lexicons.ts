import type { Migration } from '@tts/common/data';

/**
 * Pronunciation lexicons: entries of a word (or short phrase) and how to say it, IPA or a
 * respelling (exactly one). A lexicon is an owner's (`owner:<key id>` for an API key,
 * `owner:studio:<user id>` for a studio user) or a studio preset's (`preset:<preset id>`, removed
 * with its preset). One entry per word whatever its capitalization (`word_key`, lower case).
 *
 * Released with `ALTER TABLE jobs ADD COLUMN lexicon jsonb` at the end (the lexicon a queued job
 * keeps); that column is the scheduler's migration 25 now, so databases that ran the released
 * text record its checksum.
 */
export const migration: Migration = {
  version: 21,
  name: 'lexicons',
  sql: `
CREATE TABLE lexicon_entries (
  lexicon_id      text NOT NULL,
  word_key        text NOT NULL,
  word            text NOT NULL,
  ipa             text,
  respelling      text,
  case_sensitive  boolean NOT NULL DEFAULT false,
  preset_id       text REFERENCES studio_presets (preset_id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (lexicon_id, word_key),
  CHECK ((ipa IS NULL) <> (respelling IS NULL)),
  CHECK ((preset_id IS NULL) = (lexicon_id NOT LIKE 'preset:%'))
);
CREATE INDEX lexicon_entries_preset_idx ON lexicon_entries (preset_id) WHERE preset_id IS NOT NULL;
`,
  formerChecksums: ['1948a64dc252e26de8ba546922bfa2b01b64f1a14e02b1ce50ec2c0a9d390e02'],
};
