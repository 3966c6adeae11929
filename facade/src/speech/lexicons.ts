/**
 * Pronunciation lexicons: the caller's own (an API key's, or a studio user's) and each studio
 * preset's, read and changed through the API, and resolved into every speech request the caller
 * makes (synchronous, streamed, jobs): its own entries, and with a preset the preset's, which win
 * for a word both have. A caller's own lexicon is cached (lexicon-cache.ts) under a generation
 * every change bumps: a change applies to the next request on every replica.
 * Entries are checked here (`@tts/common` lexicon rules) before anything is stored; a refused
 * change stores nothing.
 */
import { LEXICON_LIMITS, TtsError, checkLexicon, checkLexiconEntry, checkLexiconWord, mergeLexicons, type LexiconEntry, type LexiconEntryInput } from '@tts/common';
import type { LexiconEntryRecord, LexiconRepository, StudioPreset, StudioRepository } from '../data/index.js';
import type { Caller } from '../middleware/access.js';
import type { StudioPrincipal } from '../studio/accounts.js';
import { ownerKeyIdOf } from '../identity/owner.js';
import type { LexiconCache } from './lexicon-cache.js';

/** Whose lexicon an operation reads or changes. */
export interface LexiconOwner {
  /** Storage id: `owner:<key id>`, `owner:studio:<user id>` or `preset:<preset id>`. */
  readonly lexiconId: string;
  readonly kind: 'api_key' | 'studio_user' | 'studio_preset';
  /** The preset of a preset's lexicon. */
  readonly presetId?: string;
}

/** The caller's own lexicon: its API key's, or its studio user's. Throws AUTH_KEY_MISSING for other callers. */
export function ownLexiconOf(caller: Caller): LexiconOwner {
  return { lexiconId: `owner:${ownerKeyIdOf(caller)}`, kind: caller.method === 'studio' ? 'studio_user' : 'api_key' };
}

/** A lexicon as the API shows it. */
export function lexiconJson(owner: LexiconOwner, entries: readonly LexiconEntryRecord[]): Record<string, unknown> {
  return {
    object: 'lexicon',
    owner: owner.kind,
    ...(owner.presetId === undefined ? {} : { preset_id: owner.presetId }),
    entries: entries.map(lexiconEntryJson),
    limits: {
      max_entries: LEXICON_LIMITS.maxEntries,
      max_word_chars: LEXICON_LIMITS.maxWordChars,
      max_words: LEXICON_LIMITS.maxWords,
      max_pronunciation_chars: LEXICON_LIMITS.maxPronunciationChars,
    },
  };
}

/** An entry as the API shows it. */
export function lexiconEntryJson(e: LexiconEntryRecord): Record<string, unknown> {
  return {
    word: e.word,
    ipa: e.ipa ?? null,
    respelling: e.respelling ?? null,
    case_sensitive: e.caseSensitive,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

/** Lexicons of keys, studio users and presets. */
export class Lexicons {
  constructor(
    private readonly repo: LexiconRepository,
    private readonly studio: Pick<StudioRepository, 'preset'>,
    /** Keeps callers' own lexicons between their requests; without it every request reads the database. */
    private readonly cache?: LexiconCache,
  ) {}

  /** The lexicon of the principal's preset `presetId`; another user's (or no) preset throws STUDIO_PRESET_NOT_FOUND (404). */
  async presetLexiconOf(principal: StudioPrincipal, presetId: string): Promise<LexiconOwner> {
    const preset = await this.studio.preset(principal.user.userId, presetId);
    if (preset === undefined) throw new TtsError('STUDIO_PRESET_NOT_FOUND', undefined, { loc: ['path', 'preset_id'] });
    return { lexiconId: `preset:${preset.presetId}`, kind: 'studio_preset', presetId: preset.presetId };
  }

  /** The lexicon of a preset opened through its share link (the share was checked by the caller), by word. */
  ofSharedPreset(preset: Pick<StudioPreset, 'presetId'>): Promise<LexiconEntryRecord[]> {
    return this.repo.list(`preset:${preset.presetId}`);
  }

  /** The entries of a lexicon, by word. */
  list(owner: LexiconOwner): Promise<LexiconEntryRecord[]> {
    return this.repo.list(owner.lexiconId);
  }

  /** Replaces a lexicon with `inputs`, checked first as a whole (nothing changes when one is bad). */
  async replace(owner: LexiconOwner, inputs: readonly LexiconEntryInput[]): Promise<LexiconEntryRecord[]> {
    const entries = await this.repo.replace(owner.lexiconId, checkLexicon(inputs, ['body', 'entries']));
    await this.cache?.changed(owner.lexiconId);
    return entries;
  }

  /**
   * Sets the entry of `word` (the path's word; an entry of that word in another capitalization is
   * replaced). Throws the entry codes, and LEXICON_LIMIT_REACHED (409) for a new word in a full lexicon.
   */
  async put(owner: LexiconOwner, word: string, input: Omit<LexiconEntryInput, 'word'>): Promise<{ entry: LexiconEntryRecord; created: boolean }> {
    // The word comes from the path, the pronunciation from the body: each error names its place.
    const entry = checkLexiconEntry({ ...input, word: checkLexiconWord(word, ['path', 'word']) }, ['body']);
    const result = await this.repo.put(owner.lexiconId, entry, LEXICON_LIMITS.maxEntries);
    if (result !== 'full') await this.cache?.changed(owner.lexiconId);
    if (result === 'full') throw new TtsError('LEXICON_LIMIT_REACHED', `The lexicon holds ${LEXICON_LIMITS.maxEntries} entries, as many as it may.`);
    return result;
  }

  /** Deletes the entry of `word`; LEXICON_ENTRY_NOT_FOUND (404) when there is none. */
  async delete(owner: LexiconOwner, word: string): Promise<void> {
    const deleted = await this.repo.delete(owner.lexiconId, word);
    if (deleted) await this.cache?.changed(owner.lexiconId);
    if (!deleted) throw new TtsError('LEXICON_ENTRY_NOT_FOUND', undefined, { loc: ['path', 'word'] });
  }

  /**
   * The lexicon a speech request of `caller` carries: its own entries, and with `presetId` (a
   * studio caller's preset, checked by the caller of this) the preset's in front. Empty for callers
   * that own no lexicon (the browser check, the administrator key).
   */
  async forSpeech(caller: Caller, presetId: string | undefined): Promise<LexiconEntry[]> {
    if (caller.method !== 'api_key' && caller.method !== 'studio') return [];
    const own = ownLexiconOf(caller).lexiconId;
    const preset = caller.method === 'studio' && presetId !== undefined && presetId !== '' ? { lexiconId: `preset:${presetId}`, userId: caller.principal.user.userId } : undefined;
    // The hot path (no preset) reads the cache; a preset's entries depend on who owns it now, so
    // that rarer path asks the database, both lexicons in one query.
    if (preset === undefined && this.cache) return mergeLexicons(await this.cache.get(own, () => this.repo.list(own)), []);
    const found = await this.repo.listForSpeech(own, preset);
    return mergeLexicons(found.own, found.preset);
  }
}
