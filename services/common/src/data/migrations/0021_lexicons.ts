import type { Migration } from './migration.js';

/**
 * Pronunciation lexicons: entries of a word (or short phrase) and how to say it, IPA or a
 * respelling (exactly one). A lexicon is an owner's (`owner:<key id>` for an API key,
 * `owner:studio:<user id>` for a studio user) or a studio preset's (`preset:<preset id>`, removed
 * with its preset). One entry per word whatever its capitalization (`word_key`, lower case).
 * Jobs keep the lexicon their request carried (JSON), so a queued job says words as they were
 * defined when it was submitted.
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

ALTER TABLE jobs ADD COLUMN lexicon jsonb;
`,
};
