/**
 * Pronunciation lexicons: entries that tell the text front-end how to say a word or a short phrase,
 * as IPA (engines that take phonemes say it exactly) or as a respelling (read as ordinary text).
 * The facade checks entries here before it stores them, and the node checks what a request carries
 * again before it applies it (a request may come from anywhere): one set of rules, one set of codes.
 */
import { TtsError } from '../errors/tts-error.js';
import { codePointName, invalidIpaSymbol } from './ipa.js';

/** One entry of a lexicon, as the text front-end applies it. */
export interface LexiconEntry {
  /** The word or phrase as written (NFC, single spaces); matched as whole words. */
  readonly word: string;
  /** How to say it in IPA (espeak-ng's symbols); exactly one of `ipa` and `respelling` is set. */
  readonly ipa?: string;
  /** How to say it as letters read like English ("tuh-MAY-toh"). */
  readonly respelling?: string;
  /** Match only the word's own capitalization. @default false */
  readonly caseSensitive: boolean;
}

/** An entry as a client sends it (the API's field names, optional fields absent or null). */
export interface LexiconEntryInput {
  readonly word: string;
  readonly ipa?: string | null | undefined;
  readonly respelling?: string | null | undefined;
  readonly case_sensitive?: boolean | null | undefined;
}

/** The bounds of a lexicon and of its entries. */
export const LEXICON_LIMITS = Object.freeze({
  /** Entries one lexicon (an API key's, a studio user's or a preset's) may hold. */
  maxEntries: 1000,
  /** Characters of an entry's word or phrase. */
  maxWordChars: 100,
  /** Words of a phrase. */
  maxWords: 8,
  /** Characters of an entry's IPA or respelling. */
  maxPronunciationChars: 200,
  /** Entries one speech request may carry: the caller's lexicon and its preset's together. */
  maxRequestEntries: 2000,
} as const);

/** Characters a word of an entry may hold beside letters, combining marks and digits. */
const WORD_PUNCTUATION = "'\u2019.&+#_-";
const WORD_TOKEN = /^[\p{L}\p{M}\p{N}'\u2019.&+#_-]+$/u;
const RESPELLING = /^[\p{L}\p{M}'\u2019\- ]+$/u;

/** The stored form of a word: NFC, trimmed, inner white space collapsed to one space. */
export function normalizeLexiconWord(word: string): string {
  return word.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

/** The identity of a word in its lexicon: one entry per word, whatever its capitalization. */
export function lexiconWordKey(word: string): string {
  return normalizeLexiconWord(word).toLowerCase();
}

/** A pronunciation as stored: NFC, trimmed, white space collapsed. */
function normalizePronunciation(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

/** Shortens what an error message quotes. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

/**
 * Checks a word or phrase; returns its stored form. Throws LEXICON_WORD_INVALID (empty, more than
 * `maxWords` words, a character other than letters, digits and ' ’ . & + # _ -, a word without a
 * letter or digit) or LEXICON_ENTRY_TOO_LONG.
 */
export function checkLexiconWord(word: string, loc: readonly (string | number)[]): string {
  const w = normalizeLexiconWord(word);
  if (w === '') throw new TtsError('LEXICON_WORD_INVALID', 'The word is empty.', { loc });
  if (w.length > LEXICON_LIMITS.maxWordChars) {
    throw new TtsError('LEXICON_ENTRY_TOO_LONG', `The word has ${w.length} characters; the limit is ${LEXICON_LIMITS.maxWordChars}.`, { loc });
  }
  const tokens = w.split(' ');
  if (tokens.length > LEXICON_LIMITS.maxWords) {
    throw new TtsError('LEXICON_WORD_INVALID', `The phrase ${quoted(w)} has ${tokens.length} words; the limit is ${LEXICON_LIMITS.maxWords}.`, { loc });
  }
  for (const token of tokens) {
    if (!WORD_TOKEN.test(token)) {
      const bad = [...token].find((ch) => !WORD_TOKEN.test(ch)) ?? token;
      throw new TtsError('LEXICON_WORD_INVALID', `The word ${quoted(w)} holds ${quoted(bad)} (${codePointName(bad)}): use letters, digits and ${WORD_PUNCTUATION.split('').join(' ')}.`, { loc });
    }
    if (!/[\p{L}\p{N}]/u.test(token)) throw new TtsError('LEXICON_WORD_INVALID', `${quoted(token)} in ${quoted(w)} has no letter or digit.`, { loc });
  }
  return w;
}

/** Checks an IPA pronunciation of `word`; returns its stored form. Throws LEXICON_IPA_INVALID or LEXICON_ENTRY_TOO_LONG. */
export function checkLexiconIpa(ipa: string, word: string, loc: readonly (string | number)[]): string {
  const p = normalizePronunciation(ipa);
  if (p.length > LEXICON_LIMITS.maxPronunciationChars) {
    throw new TtsError('LEXICON_ENTRY_TOO_LONG', `The IPA of ${quoted(word)} has ${p.length} characters; the limit is ${LEXICON_LIMITS.maxPronunciationChars}.`, { loc });
  }
  const bad = invalidIpaSymbol(p);
  if (bad !== undefined) {
    throw new TtsError('LEXICON_IPA_INVALID', `The IPA of ${quoted(word)} holds ${quoted(bad.symbol)} (${codePointName(bad.symbol)}) at symbol ${bad.index + 1}, which espeak-ng's IPA does not use.`, { loc });
  }
  if (!/[^\s\u02C8\u02CC\u02D0\u02D1.\u203F|\u2016]/u.test(p)) throw new TtsError('LEXICON_IPA_INVALID', `The IPA of ${quoted(word)} has no phoneme.`, { loc });
  return p;
}

/** Checks a respelling of `word`; returns its stored form. Throws LEXICON_RESPELLING_INVALID or LEXICON_ENTRY_TOO_LONG. */
export function checkLexiconRespelling(respelling: string, word: string, loc: readonly (string | number)[]): string {
  const p = normalizePronunciation(respelling);
  if (p.length > LEXICON_LIMITS.maxPronunciationChars) {
    throw new TtsError('LEXICON_ENTRY_TOO_LONG', `The respelling of ${quoted(word)} has ${p.length} characters; the limit is ${LEXICON_LIMITS.maxPronunciationChars}.`, { loc });
  }
  if (!RESPELLING.test(p) || !/\p{L}/u.test(p)) {
    const bad = [...p].find((ch) => !RESPELLING.test(ch));
    throw new TtsError('LEXICON_RESPELLING_INVALID', `The respelling of ${quoted(word)} ${bad === undefined ? 'has no letter' : `holds ${quoted(bad)} (${codePointName(bad)})`}: use letters, apostrophes, hyphens and spaces.`, { loc });
  }
  return p;
}

/**
 * Checks one entry as a client sent it (`loc` names it, e.g. ['body', 'entries', 3]); returns it
 * as stored. Throws LEXICON_ENTRY_INVALID when not exactly one of `ipa` and `respelling` is given,
 * and the codes of the word and pronunciation checks.
 */
export function checkLexiconEntry(input: LexiconEntryInput, loc: readonly (string | number)[]): LexiconEntry {
  const word = checkLexiconWord(input.word, [...loc, 'word']);
  const ipa = input.ipa ?? undefined;
  const respelling = input.respelling ?? undefined;
  if ((ipa === undefined) === (respelling === undefined)) {
    throw new TtsError('LEXICON_ENTRY_INVALID', `The entry ${quoted(word)} needs exactly one of ipa and respelling.`, { loc });
  }
  const caseSensitive = input.case_sensitive ?? false;
  if (ipa !== undefined) return { word, ipa: checkLexiconIpa(ipa, word, [...loc, 'ipa']), caseSensitive };
  return { word, respelling: checkLexiconRespelling(respelling!, word, [...loc, 'respelling']), caseSensitive };
}

/**
 * Checks a whole lexicon as a client sent it (`loc` names the list); returns the entries as stored.
 * Throws LEXICON_TOO_LARGE over `maxEntries` (before anything else is read), LEXICON_ENTRY_DUPLICATE
 * for two entries of one word (whatever the capitalization), and the codes of checkLexiconEntry for
 * the first bad entry.
 */
export function checkLexicon(inputs: readonly LexiconEntryInput[], loc: readonly (string | number)[], maxEntries: number = LEXICON_LIMITS.maxEntries): LexiconEntry[] {
  if (inputs.length > maxEntries) throw new TtsError('LEXICON_TOO_LARGE', `The lexicon has ${inputs.length} entries; the limit is ${maxEntries}.`, { loc });
  const seen = new Map<string, number>();
  return inputs.map((input, i) => {
    const entry = checkLexiconEntry(input, [...loc, i]);
    const key = lexiconWordKey(entry.word);
    const first = seen.get(key);
    if (first !== undefined) throw new TtsError('LEXICON_ENTRY_DUPLICATE', `Entries ${first} and ${i} are both for ${quoted(entry.word)}; a lexicon has one entry per word.`, { loc: [...loc, i, 'word'] });
    seen.set(key, i);
    return entry;
  });
}

/**
 * The entries a speech request applies: `base` (the caller's lexicon) with `override` (its preset's)
 * in front, an override replacing the base entry of the same word.
 */
export function mergeLexicons(base: readonly LexiconEntry[], override: readonly LexiconEntry[]): LexiconEntry[] {
  const overridden = new Set(override.map((e) => lexiconWordKey(e.word)));
  return [...override, ...base.filter((e) => !overridden.has(lexiconWordKey(e.word)))];
}
