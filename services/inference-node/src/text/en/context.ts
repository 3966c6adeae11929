/**
 * Helpers shared by the English rewrite rules: a typed regex rewrite and cheap look-ups of the
 * words around a match.
 */
import { periodEndsSentence } from '../abbreviations.js';

/** Returns the replacement for a match, or null to reject it and keep searching from the next character. */
export type Replacer = (m: RegExpExecArray, src: string) => string | null;

/** Like `String.replace` with a global regex, but the callback gets the typed match and may reject it. */
export function rewrite(src: string, re: RegExp, fn: Replacer): string {
  re.lastIndex = 0;
  let out = '';
  let last = 0;
  for (let m = re.exec(src); m !== null; m = re.exec(src)) {
    const replacement = fn(m, src);
    if (replacement === null) {
      re.lastIndex = m.index + 1;
      continue;
    }
    out += src.slice(last, m.index) + replacement;
    last = m.index + m[0].length;
    if (m[0].length === 0) re.lastIndex++;
  }
  return last === 0 && out === '' ? src : out + src.slice(last);
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** True when the character before `index` is a letter, digit or underscore (a cheap lookbehind). */
export function followsWordChar(src: string, index: number): boolean {
  return index > 0 && WORD_CHAR.test(src[index - 1]!);
}

const isWordCode = (src: string, i: number): boolean => WORD_CHAR.test(src[i] ?? ' ') || src[i] === "'";

/**
 * The word before `index` when it can tell a name from a street: "" at the start of a sentence,
 * after . ! ? ; : and, unless `evenFirst`, when that word opens the sentence (its capital says nothing).
 */
export function previousWord(src: string, index: number, evenFirst = false): string {
  let end = index;
  while (end > 0 && !isWordCode(src, end - 1)) {
    if ('.!?;:'.includes(src[end - 1]!)) return '';
    end--;
  }
  let start = end;
  while (start > 0 && isWordCode(src, start - 1)) start--;
  if (start === end || evenFirst) return src.slice(start, end);
  let before = start;
  while (before > 0 && /[\s"'(\[]/.test(src[before - 1]!)) before--;
  const opensSentence = before === 0 || '.!?'.includes(src[before - 1]!);
  return opensSentence ? '' : src.slice(start, end);
}

/** The word after `index` in `src` ("" at the end or when no white space follows). */
export function nextWord(src: string, index: number): string {
  return /^\s+([\p{L}\p{N}'][\p{L}\p{N}'.-]*)/u.exec(src.slice(index, index + 40))?.[1] ?? '';
}

/** True for a word starting with a capital letter. */
export function isCapitalized(word: string): boolean {
  return /^\p{Lu}/u.test(word);
}

/** "." when the abbreviation whose period ends at `end` also ends the sentence. */
export function finalPeriod(src: string, end: number, word: string): string {
  return periodEndsSentence(word, src.slice(end, end + 48)) ? '.' : '';
}

/** `spoken` with a capital first letter when `written` has one. */
export function capitalizeLike(written: string, spoken: string): string {
  return isCapitalized(written) && /^\p{Ll}/u.test(spoken) ? spoken[0]!.toUpperCase() + spoken.slice(1) : spoken;
}

/** Escapes a literal for use inside a RegExp. */
export function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A decimal literal with optional comma grouping: 1,234.56 / 12 / .5 */
export const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+`;
