/**
 * English abbreviations and the one rule that decides whether a period after a word ends a
 * sentence. The sentence splitter and the normalizer share it, so "U.S. Army" is neither split
 * nor given a full stop, while "in the U.S. The next day" is both.
 */

/** Titles written before a name: never the end of a sentence. Keys are lower case, without the period. */
export const TITLES: Readonly<Record<string, string>> = {
  mr: 'Mister', mrs: 'Missus', ms: 'Miz', mx: 'Mix', dr: 'Doctor', prof: 'Professor', rev: 'Reverend',
  hon: 'Honorable', gen: 'General', capt: 'Captain', lt: 'Lieutenant', sgt: 'Sergeant', col: 'Colonel',
  maj: 'Major', gov: 'Governor', sen: 'Senator', rep: 'Representative', pres: 'President', fr: 'Father',
  mt: 'Mount', ft: 'Fort', messrs: 'Messieurs',
};

/** Abbreviations followed by more of the same sentence; the value is the spoken form. */
export const NEVER_FINAL: Readonly<Record<string, string>> = {
  'e.g': 'for example', 'i.e': 'that is', vs: 'versus', cf: 'compare', approx: 'approximately', viz: 'namely',
};

/** Abbreviations that stand before a number ("No. 5", "Fig. 3", "Jan. 5"). */
export const BEFORE_NUMBER: Readonly<Record<string, string>> = {
  no: 'number', nos: 'numbers', fig: 'figure', figs: 'figures', vol: 'volume', vols: 'volumes', p: 'page',
  pp: 'pages', ch: 'chapter', chap: 'chapter', sec: 'section', art: 'article', eq: 'equation', ref: 'reference',
  op: 'opus',
};

/** Abbreviations that end a sentence when the next word is capitalized. */
export const FINAL_BEFORE_CAPITAL: Readonly<Record<string, string>> = {
  etc: 'et cetera', 'a.m': 'AM', 'p.m': 'PM',
};

/**
 * Abbreviations that usually continue the sentence ("Apple Inc. Chief ...", "Martin Luther King Jr. Day")
 * and end it only when a typical sentence opener follows ("... Inc. The").
 */
export const FINAL_BEFORE_OPENER: Readonly<Record<string, string>> = {
  inc: 'Incorporated', ltd: 'Limited', corp: 'Corporation', co: 'Company', jr: 'Junior', sr: 'Senior',
  st: 'Street', ave: 'Avenue', blvd: 'Boulevard', rd: 'Road', apt: 'Apartment', dept: 'Department',
  univ: 'University', assn: 'Association', bros: 'Brothers', al: 'and others', 'ph.d': 'P H D',
  jan: 'January', feb: 'February', mar: 'March', apr: 'April', jun: 'June', jul: 'July', aug: 'August',
  sep: 'September', sept: 'September', oct: 'October', nov: 'November', dec: 'December',
};

/** Words that typically open a sentence; lower case. */
const SENTENCE_OPENERS = new Set([
  'a', 'after', 'all', 'also', 'although', 'an', 'and', 'are', 'as', 'at', 'because', 'before', 'both', 'but',
  'by', 'can', 'could', 'did', 'do', 'does', 'each', 'even', 'every', 'finally', 'first', 'for', 'from', 'he',
  'her', 'here', 'his', 'how', 'however', 'i', 'if', 'in', 'is', 'it', 'its', 'just', 'last', 'later', 'let',
  'many', 'meanwhile', 'most', 'my', 'next', 'no', 'not', 'now', 'of', 'on', 'one', 'or', 'our', 'please',
  'she', 'since', 'so', 'some', 'still', 'such', 'thanks', 'that', 'the', 'their', 'then', 'there', 'these',
  'they', 'this', 'those', 'thus', 'to', 'today', 'tomorrow', 'was', 'we', 'were', 'what', 'when', 'where',
  'which', 'while', 'who', 'why', 'will', 'with', 'would', 'yes', 'yesterday', 'yet', 'you', 'your',
]);

/** True when `word` (any case, possibly with an apostrophe suffix like "It's") typically opens a sentence. */
export function isSentenceOpener(word: string): boolean {
  return SENTENCE_OPENERS.has(word.toLowerCase().replace(/['\u2019].*$/, ''));
}

/** Opening quotes and brackets at the start of a string. */
export const OPENING_PUNCTUATION = /^["'\u201C\u2018\u00AB\u2039([{]+/;
const DOTTED_ACRONYM = /^(?:\p{L}\.)+\p{L}$/u;

/** The word a period follows, without opening brackets or quotes: `(Dr` -> `Dr`, `"U.S` -> `U.S`. */
export function wordBeforePeriod(text: string, periodIndex: number): string {
  let start = periodIndex;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  return text.slice(start, periodIndex).replace(OPENING_PUNCTUATION, '');
}

/**
 * Decides whether a period after `word` ends the sentence, given the text that follows the period
 * (and any closing quotes). `atSentenceStart` is true when `word` opens the current sentence
 * (so "1." is a list number, not a sentence).
 */
export function periodEndsSentence(word: string, following: string, atSentenceStart = false): boolean {
  const rest = following.trimStart().replace(OPENING_PUNCTUATION, '');
  if (rest === '') return true;
  const first = rest[0]!;
  if (/\p{Ll}/u.test(first)) return false;
  const key = word.toLowerCase();
  const nextWord = /^[\p{L}\p{N}'\u2019]+/u.exec(rest)?.[0] ?? '';
  if (atSentenceStart && /^\d{1,3}$/.test(word)) return false;
  if (Object.hasOwn(TITLES, key) || Object.hasOwn(NEVER_FINAL, key)) return false;
  if (Object.hasOwn(BEFORE_NUMBER, key) && /\d/.test(first)) return false;
  if (Object.hasOwn(FINAL_BEFORE_CAPITAL, key)) return true;
  if (Object.hasOwn(FINAL_BEFORE_OPENER, key) || /^\p{Lu}$/u.test(word) || DOTTED_ACRONYM.test(word)) {
    return isSentenceOpener(nextWord);
  }
  return true;
}
