/**
 * The pronunciation lexicon in the text front-end. Entries are matched on the text as written,
 * before normalization, as whole words (Unicode letters, marks and digits on neither side; "tomato"
 * is not found in "tomatoes" nor in "tomato's"), case-insensitively unless an entry is case
 * sensitive, leftmost first and at one place the longest entry first (so a phrase wins over its
 * first word). Each match is replaced by a mark, a private-use character that normalization,
 * sentence splitting and chunking pass through untouched (so "C3PO" is not read as "C three P O"
 * first), and every chunk is expanded at the end: for an engine that takes phonemes into parts said
 * by their IPA inline, for the others into text with the respelling.
 */
import { lexiconWordKey, type LexiconEntry } from '@tts/common';
import type { TextPart } from '../engines/engine.js';
import { ipaToRespelling } from './respelling.js';

/** First code point of the marks (the Basic Multilingual Plane's private use area). */
const MARK_BASE = 0xe000;
/** Number of marks: distinct (entry, written form) pairs one text may hold; later ones are read as written. */
const MARK_COUNT = 0xf8ff - MARK_BASE + 1;
/** Any mark (and any private-use character a client sent, removed first: it has no sound). */
export const LEXICON_MARK = /[\uE000-\uF8FF]/u;
const MARKS = /[\uE000-\uF8FF]/gu;

const WORD_CHAR = /[\p{L}\p{M}\p{N}_]/u;
const APOSTROPHE = /['\u2019]/u;
const SPACE = /\s/u;

/** A lexicon ready to match: entries by the word characters they start with (lower case), longest first. */
export interface CompiledLexicon {
  readonly size: number;
  /** Entries whose word starts with the word characters `head` (lower case; '' for a word starting with punctuation), longest first. */
  candidates(head: string): readonly LexiconEntry[];
}

/** The run of word characters from `at` (none: ''), as candidates are keyed. */
const HEAD = /[\p{L}\p{M}\p{N}_]*/uy;
function headAt(text: string, at: number): string {
  HEAD.lastIndex = at;
  return (HEAD.exec(text)?.[0] ?? '').toLowerCase();
}

/** Compiles entries for matching. Later entries of a word already seen (whatever its case) are ignored. */
export function compileLexicon(entries: readonly LexiconEntry[]): CompiledLexicon {
  const byHead = new Map<string, LexiconEntry[]>();
  const seen = new Set<string>();
  for (const entry of entries) {
    const key = lexiconWordKey(entry.word);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    const head = headAt(key, 0);
    const list = byHead.get(head) ?? [];
    list.push(entry);
    byHead.set(head, list);
  }
  for (const list of byHead.values()) {
    list.sort((a, b) => b.word.length - a.word.length);
  }
  return { size: seen.size, candidates: (head) => byHead.get(head) ?? [] };
}

/** One match: `text.slice(start, end)` is said by `entry`. */
export interface LexiconMatch {
  readonly start: number;
  readonly end: number;
  readonly entry: LexiconEntry;
}

/** The character (code point) that ends right before `i`, or '' at the start. */
function charBefore(text: string, i: number): string {
  if (i <= 0) return '';
  const code = text.charCodeAt(i - 1);
  return i >= 2 && code >= 0xdc00 && code <= 0xdfff ? text.slice(i - 2, i) : text[i - 1]!;
}

/** The character (code point) that starts at `i`, or '' at the end. */
function charAt(text: string, i: number): string {
  return i >= text.length ? '' : String.fromCodePoint(text.codePointAt(i)!);
}

/** True when a word may start at `i` (no word character, nor an apostrophe inside a word, before it). */
function startsWord(text: string, i: number): boolean {
  const before = charBefore(text, i);
  if (before === '') return true;
  if (WORD_CHAR.test(before) || /\p{M}/u.test(charAt(text, i))) return false;
  return !(APOSTROPHE.test(before) && WORD_CHAR.test(charBefore(text, i - before.length)));
}

/** True when a word may end at `i` (no word character, nor an apostrophe followed by one, after it). */
function endsWord(text: string, i: number): boolean {
  const after = charAt(text, i);
  if (after === '') return true;
  if (WORD_CHAR.test(after)) return false;
  return !(APOSTROPHE.test(after) && WORD_CHAR.test(charAt(text, i + after.length)));
}

/** Where `word` matches `text` from `at` (a space of the word matches any white space run), or -1. */
function matchAt(text: string, at: number, word: string, caseSensitive: boolean): number {
  let t = at;
  for (let w = 0; w < word.length; ) {
    const wc = String.fromCodePoint(word.codePointAt(w)!);
    if (wc === ' ') {
      if (t >= text.length || !SPACE.test(text[t]!)) return -1;
      while (t < text.length && SPACE.test(text[t]!)) t++;
      w++;
      continue;
    }
    if (t >= text.length) return -1;
    const tc = String.fromCodePoint(text.codePointAt(t)!);
    if (tc !== wc && (caseSensitive || tc.toLowerCase() !== wc.toLowerCase())) return -1;
    t += tc.length;
    w += wc.length;
  }
  return t;
}

/** The matches of `lexicon` in `text`, left to right, not overlapping. */
export function findLexiconMatches(text: string, lexicon: CompiledLexicon): LexiconMatch[] {
  const matches: LexiconMatch[] = [];
  if (lexicon.size === 0) return matches;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    let matched: LexiconMatch | undefined;
    if (!SPACE.test(ch) && startsWord(text, i)) {
      for (const entry of lexicon.candidates(headAt(text, i))) {
        const end = matchAt(text, i, entry.word, entry.caseSensitive);
        if (end > i && endsWord(text, end)) {
          matched = { start: i, end, entry };
          break;
        }
      }
    }
    if (matched) {
      matches.push(matched);
      i = matched.end;
    } else i += ch.length;
  }
  return matches;
}

/** A text with its lexicon matches replaced by marks, and what each mark stands for. */
export interface MarkedText {
  readonly text: string;
  /** `marks[i]` is what the character U+E000 + i stands for. */
  readonly marks: readonly { readonly written: string; readonly entry: LexiconEntry }[];
}

/**
 * Replaces every match of `lexicon` in `text` (NFC, as entries are stored) by a mark (one per
 * distinct entry and written form). Private-use characters of the text itself are removed first
 * (they have no sound).
 */
export function markLexiconWords(text: string, lexicon: CompiledLexicon | undefined): MarkedText {
  const clean = text.normalize('NFC').replace(MARKS, '');
  if (lexicon === undefined || lexicon.size === 0) return { text: clean, marks: [] };
  const marks: { written: string; entry: LexiconEntry }[] = [];
  const index = new Map<string, number>();
  let out = '';
  let at = 0;
  for (const m of findLexiconMatches(clean, lexicon)) {
    const written = clean.slice(m.start, m.end);
    const key = `${lexiconWordKey(m.entry.word)}\u0000${written}`;
    let i = index.get(key);
    if (i === undefined && marks.length < MARK_COUNT) {
      i = marks.push({ written, entry: m.entry }) - 1;
      index.set(key, i);
    }
    if (i === undefined) continue;
    out += clean.slice(at, m.start) + String.fromCharCode(MARK_BASE + i);
    at = m.end;
  }
  return { text: out + clean.slice(at), marks };
}

/** A chunk of speech: its text, and for an engine that takes phonemes the parts said by their IPA. */
export interface SpeechText {
  /** What is read (for parts with IPA, the words they say). */
  readonly text: string;
  /** Set when some of the text is said by its IPA. */
  readonly parts?: readonly TextPart[];
  /**
   * Set when respellings replaced written words: the text in order as segments of what is read and
   * what is written (equal outside the respellings), so word timings name the written words.
   */
  readonly respelled?: readonly RespelledSegment[];
}

/** A stretch of a chunk: what the engine reads, and what the text wrote there. */
export interface RespelledSegment {
  readonly read: string;
  readonly written: string;
}

/**
 * Expands the marks of a chunk. `ipaInput`: the engine takes phonemes, so an IPA entry becomes a
 * part said by its IPA; otherwise it is read as a respelling made from the IPA. A respelling entry
 * is read as its respelling on every engine.
 */
export function expandLexiconMarks(chunk: string, marked: MarkedText, ipaInput: boolean): SpeechText {
  if (marked.marks.length === 0 || !LEXICON_MARK.test(chunk)) return { text: chunk };
  const parts: TextPart[] = [];
  const segments: RespelledSegment[] = [];
  let plain = '';
  let spoken = '';
  let unchanged = '';
  for (const ch of chunk) {
    const code = ch.charCodeAt(0) - MARK_BASE;
    const mark = ch.length === 1 && code >= 0 ? marked.marks[code] : undefined;
    if (mark === undefined) {
      plain += ch;
      unchanged += ch;
      continue;
    }
    const { entry, written } = mark;
    if (ipaInput && entry.ipa !== undefined) {
      if (plain !== '') parts.push({ text: plain });
      parts.push({ text: written, ipa: entry.ipa });
      spoken += plain + written;
      plain = '';
      unchanged += written;
    } else {
      // An IPA with nothing English letters spell (only a glottal stop, say) leaves the word as written.
      const respelled = entry.respelling ?? ipaToRespelling(entry.ipa ?? '');
      plain += respelled === '' ? written : respelled;
      if (respelled === '') unchanged += written;
      else {
        if (unchanged !== '') segments.push({ read: unchanged, written: unchanged });
        segments.push({ read: respelled, written });
        unchanged = '';
      }
    }
  }
  if (segments.length > 0 && unchanged !== '') segments.push({ read: unchanged, written: unchanged });
  const respelled = segments.length > 0 ? { respelled: segments } : {};
  if (parts.length === 0) return { text: plain, ...respelled };
  if (plain !== '') parts.push({ text: plain });
  return { text: spoken + plain, parts, ...respelled };
}
