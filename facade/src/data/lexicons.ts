/**
 * Pronunciation lexicon entries (`lexicon_entries`). A lexicon is named by its id: `owner:<key id>`
 * (an API key's), `owner:studio:<user id>` (a studio user's) or `preset:<preset id>` (a studio
 * preset's, removed with its preset). Every change of one lexicon runs in one transaction that first
 * takes the lexicon's advisory lock, so its entry limit holds under concurrent writes and a refused
 * change leaves the lexicon as it was.
 */
import { lexiconWordKey, type LexiconEntry } from '@tts/common';
import type { Database, Queryable } from '@tts/common/data';

/** A stored entry. */
export interface LexiconEntryRecord extends LexiconEntry {
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

interface EntryRow {
  word: string;
  ipa: string | null;
  respelling: string | null;
  case_sensitive: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'word, ipa, respelling, case_sensitive, created_at, updated_at';

/** An upsert keeps the entry's creation time. */
const ON_CONFLICT = `ON CONFLICT (lexicon_id, word_key) DO UPDATE SET word = EXCLUDED.word, ipa = EXCLUDED.ipa, respelling = EXCLUDED.respelling,
       case_sensitive = EXCLUDED.case_sensitive, updated_at = now()`;

function recordOf(r: EntryRow): LexiconEntryRecord {
  return {
    word: r.word,
    ...(r.ipa === null ? {} : { ipa: r.ipa }),
    ...(r.respelling === null ? {} : { respelling: r.respelling }),
    caseSensitive: r.case_sensitive,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The preset id of a preset lexicon id (for the cascade), else null. */
function presetIdOf(lexiconId: string): string | null {
  return lexiconId.startsWith('preset:') ? lexiconId.slice('preset:'.length) : null;
}

/** Reads and writes lexicon entries. */
export class LexiconRepository {
  constructor(private readonly db: Database) {}

  /** The entries of a lexicon, by word. */
  async list(lexiconId: string, q: Queryable = this.db): Promise<LexiconEntryRecord[]> {
    const rows = await q.query<EntryRow>(`SELECT ${COLUMNS} FROM lexicon_entries WHERE lexicon_id = $1::text ORDER BY word_key`, [lexiconId]);
    return rows.map(recordOf);
  }

  /**
   * The entries a speech request applies, in one query: those of lexicon `own`, and with `preset`
   * those of the preset's lexicon when the preset belongs to `preset.userId`.
   */
  async listForSpeech(own: string, preset: { lexiconId: string; userId: string } | undefined): Promise<{ own: LexiconEntryRecord[]; preset: LexiconEntryRecord[] }> {
    const rows = await this.db.query<EntryRow & { lexicon_id: string }>(
      `SELECT e.lexicon_id, e.word, e.ipa, e.respelling, e.case_sensitive, e.created_at, e.updated_at FROM lexicon_entries e
       WHERE e.lexicon_id = $1::text
          OR (e.lexicon_id = $2::text AND EXISTS (SELECT 1 FROM studio_presets p WHERE p.preset_id = e.preset_id AND p.user_id = $3::text))
       ORDER BY e.word_key`,
      [own, preset?.lexiconId ?? null, preset?.userId ?? null],
    );
    return {
      own: rows.filter((r) => r.lexicon_id === own).map(recordOf),
      preset: rows.filter((r) => r.lexicon_id !== own).map(recordOf),
    };
  }

  /**
   * Replaces every entry of a lexicon with `entries` (checked by the caller, one per word), keeping
   * the creation time of words that stay. One transaction.
   */
  async replace(lexiconId: string, entries: readonly LexiconEntry[]): Promise<LexiconEntryRecord[]> {
    const rows = JSON.stringify(entries.map((e) => ({ word_key: lexiconWordKey(e.word), word: e.word, ipa: e.ipa ?? null, respelling: e.respelling ?? null, case_sensitive: e.caseSensitive })));
    return this.db.transaction(async (tx) => {
      await lock(tx, lexiconId);
      // Words that go are deleted; the others are upserted in one statement (their created_at stays).
      await tx.query(
        `DELETE FROM lexicon_entries WHERE lexicon_id = $1::text
           AND word_key NOT IN (SELECT x.word_key FROM jsonb_to_recordset($2::text::jsonb) AS x(word_key text))`,
        [lexiconId, rows],
      );
      await tx.query(
        `INSERT INTO lexicon_entries (lexicon_id, word_key, word, ipa, respelling, case_sensitive, preset_id)
         SELECT $1::text, x.word_key, x.word, x.ipa, x.respelling, x.case_sensitive, $3::text
         FROM jsonb_to_recordset($2::text::jsonb) AS x(word_key text, word text, ipa text, respelling text, case_sensitive boolean)
         ${ON_CONFLICT}`,
        [lexiconId, rows, presetIdOf(lexiconId)],
      );
      return this.list(lexiconId, tx);
    });
  }

  /**
   * Sets the entry of `entry.word` (replacing the entry of that word whatever its capitalization).
   * With `maxEntries`, a new word is refused when the lexicon is full: resolves to `full`.
   */
  async put(lexiconId: string, entry: LexiconEntry, maxEntries: number): Promise<{ entry: LexiconEntryRecord; created: boolean } | 'full'> {
    return this.db.transaction(async (tx) => {
      await lock(tx, lexiconId);
      const key = lexiconWordKey(entry.word);
      const existing = await tx.query<{ n: number }>('SELECT 1 AS n FROM lexicon_entries WHERE lexicon_id = $1::text AND word_key = $2::text', [lexiconId, key]);
      const created = existing.length === 0;
      if (created) {
        const [count] = await tx.query<{ n: number }>('SELECT count(*)::int8 AS n FROM lexicon_entries WHERE lexicon_id = $1::text', [lexiconId]);
        if (Number(count?.n ?? 0) >= maxEntries) return 'full';
      }
      return { entry: await upsert(tx, lexiconId, entry), created };
    });
  }

  /** Deletes the entry of `word` (whatever its capitalization); false when there is none. */
  async delete(lexiconId: string, word: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM lexicon_entries WHERE lexicon_id = $1::text AND word_key = $2::text RETURNING word', [lexiconId, lexiconWordKey(word)]);
    return rows.length > 0;
  }

  /** Deletes a whole lexicon (an account's, when the account is deleted); resolves to the entries removed. */
  async deleteAll(lexiconId: string, q: Queryable = this.db): Promise<number> {
    const rows = await q.query('DELETE FROM lexicon_entries WHERE lexicon_id = $1::text RETURNING word', [lexiconId]);
    return rows.length;
  }
}

/** Serializes writes of one lexicon until the transaction ends. */
async function lock(tx: Queryable, lexiconId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1::text))', [`tts.lexicon:${lexiconId}`]);
}

async function upsert(tx: Queryable, lexiconId: string, e: LexiconEntry): Promise<LexiconEntryRecord> {
  const rows = await tx.query<EntryRow>(
    `INSERT INTO lexicon_entries (lexicon_id, word_key, word, ipa, respelling, case_sensitive, preset_id)
     VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::boolean, $7::text)
     ${ON_CONFLICT}
     RETURNING ${COLUMNS}`,
    [lexiconId, lexiconWordKey(e.word), e.word, e.ipa ?? null, e.respelling ?? null, e.caseSensitive, presetIdOf(lexiconId)],
  );
  return recordOf(rows[0]!);
}
