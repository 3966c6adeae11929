/**
 * Written-only words: abbreviations ("Dr.", "St.", "etc."), dotted acronyms ("U.S."), initials
 * ("J. R. R.") and roman numerals in regnal or numbering contexts ("Henry VIII", "World War II").
 */
import {
  BEFORE_NUMBER, FINAL_BEFORE_CAPITAL, FINAL_BEFORE_OPENER, NEVER_FINAL, TITLES, isSentenceOpener,
} from '../abbreviations.js';
import { cardinalWordsToOrdinal, integerToWords } from '../numbers.js';
import {
  capitalizeLike, escapeRegExp, finalPeriod, isCapitalized, nextWord, previousWord, rewrite,
} from './context.js';

const lookup = (table: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

const TITLE_WORD = /\b(Mr|Mrs|Ms|Mx|Dr|Prof|Rev|Hon|Gen|Capt|Lt|Sgt|Col|Maj|Gov|Sen|Rep|Pres|Fr|Mt|Ft|Messrs)(\.)?(?![\p{L}\p{N}])/gu;
// Titles that are always titles with a period, and may be written without one ("Mr Smith").
const COMMON_TITLES = new Set(['mr', 'mrs', 'ms', 'mx', 'dr', 'prof']);

function expandTitle(m: RegExpExecArray, src: string): string | null {
  const [whole, title = '', dot] = m;
  const key = title.toLowerCase();
  const end = m.index + whole.length;
  const next = nextWord(src, end);
  const nextIsName = isCapitalized(next) && !isSentenceOpener(next);
  if (key === 'dr' && dot !== undefined) {
    // "Elm Dr." is a street: a capitalized word before, no name after.
    const prev = previousWord(src, m.index, true);
    if (isCapitalized(prev) && !isSentenceOpener(prev) && !nextIsName) return `Drive${finalPeriod(src, end, 'st')}`;
  }
  const isTitle = COMMON_TITLES.has(key) ? dot !== undefined || nextIsName : dot !== undefined && nextIsName;
  return isTitle ? lookup(TITLES, key) ?? null : null;
}

/** "St." is Saint before a name ("St. Louis") and Street after one ("Main St."). */
function expandSaintOrStreet(m: RegExpExecArray, src: string): string {
  const end = m.index + m[0].length;
  const prev = previousWord(src, m.index);
  const afterName = (isCapitalized(prev) && !isSentenceOpener(prev)) || /^\d/.test(prev);
  if (!afterName && isCapitalized(nextWord(src, end))) return 'Saint';
  return `Street${m[1] === '.' ? finalPeriod(src, end, 'st') : ''}`;
}

/** One regex for a list of abbreviations, each followed by its period; `.` inside keys is literal. */
function abbreviationPattern(keys: readonly string[], suffix = ''): RegExp {
  const alternatives = [...keys].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
  return new RegExp(String.raw`\b(${alternatives})\.${suffix}`, 'gi');
}

const GENERAL = abbreviationPattern([
  ...Object.keys(NEVER_FINAL), ...Object.keys(FINAL_BEFORE_CAPITAL),
  'inc', 'ltd', 'corp', 'co', 'jr', 'sr', 'ave', 'blvd', 'rd', 'apt', 'dept', 'univ', 'assn', 'bros', 'ph.d',
]);
// Abbreviations that are only names when capitalized ("co." is rarely one at all).
const CAPITALIZED_ONLY = new Set(['co', 'inc', 'ltd', 'corp', 'rd', 'ave']);
const NUMBERED = abbreviationPattern(Object.keys(BEFORE_NUMBER), String.raw`\s?(?=\d)`);
const DOTTED_ACRONYM = /((?:\p{Lu}\.)+\p{Lu})(\.)?(?![\p{L}\p{N}])/gu;
const INITIAL = /(\p{Lu})\.(?=\s+\p{Lu})/gu;
const isAfterWordOrDot = (src: string, index: number): boolean => /[\p{L}\p{N}.']/u.test(src[index - 1] ?? ' ');

/** Expands abbreviations, joins dotted acronyms ("U.S." -> "US") and drops the periods of initials. */
export function normalizeAbbreviations(text: string): string {
  let out = text;
  if (out.includes('#')) out = out.replace(/#\s?(?=\d)/g, 'number ');
  const hasPeriod = out.includes('.');
  if (hasPeriod && /[a-z]\.\s?\d/i.test(out)) {
    out = rewrite(out, NUMBERED, (m) => {
      const word = m[1] ?? '';
      return `${capitalizeLike(word, lookup(BEFORE_NUMBER, word.toLowerCase()) ?? word)} `;
    });
  }
  if (out.includes('et al.')) {
    out = rewrite(out, /\bet al\./g, (m, src) => `and others${finalPeriod(src, m.index + m[0].length, 'al')}`);
  }
  if (out.includes('St')) out = rewrite(out, /\bSt\b(\.)?(?![\p{L}\p{N}'])/gu, expandSaintOrStreet);
  if (hasPeriod || /\b(?:Mr|Mrs|Ms|Mx|Dr|Prof)\b/.test(out)) out = rewrite(out, TITLE_WORD, expandTitle);
  if (!hasPeriod) return out.replace(/\bvs\b/g, 'versus');
  out = rewrite(out, GENERAL, (m, src) => {
    const word = m[1] ?? '';
    const key = word.toLowerCase();
    if (src[m.index - 1] === '.' || (key === word && CAPITALIZED_ONLY.has(key))) return null;
    const spoken = lookup(NEVER_FINAL, key) ?? lookup(FINAL_BEFORE_CAPITAL, key) ?? lookup(FINAL_BEFORE_OPENER, key) ?? word;
    return capitalizeLike(word, spoken) + finalPeriod(src, m.index + m[0].length, key);
  });
  out = out.replace(/\bvs\b/g, 'versus');
  out = rewrite(out, DOTTED_ACRONYM, (m, src) => {
    if (isAfterWordOrDot(src, m.index)) return null;
    const letters = (m[1] ?? '').replace(/\./g, '');
    return m[2] === undefined ? letters : letters + finalPeriod(src, m.index + m[0].length, m[1] ?? '');
  });
  return rewrite(out, INITIAL, (m, src) => {
    const letter = m[1] ?? '';
    // "A." and "I." would read as the article and the pronoun without their period.
    if (isAfterWordOrDot(src, m.index) || letter === 'A' || letter === 'I') return null;
    return letter + finalPeriod(src, m.index + m[0].length, letter);
  });
}

const ROMAN_VALUES: Readonly<Record<string, number>> = { I: 1, V: 5, X: 10, L: 50 };
const ROMAN_TABLE: readonly (readonly [number, string])[] = [
  [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I'],
];

function toRoman(n: number): string {
  let out = '';
  let rest = n;
  for (const [value, symbol] of ROMAN_TABLE) {
    for (; rest >= value; rest -= value) out += symbol;
  }
  return out;
}

/** Value of a canonical roman numeral below 90, else undefined ("IIII" and "VX" are not numerals). */
function romanToNumber(roman: string): number | undefined {
  let total = 0;
  for (let i = 0; i < roman.length; i++) {
    const value = ROMAN_VALUES[roman[i]!];
    if (value === undefined) return undefined;
    total += value < (ROMAN_VALUES[roman[i + 1] ?? ''] ?? 0) ? -value : value;
  }
  return total > 0 && total < 90 && toRoman(total) === roman ? total : undefined;
}

const REGNAL_NAMES = [
  'Henry', 'Edward', 'George', 'William', 'Elizabeth', 'Charles', 'James', 'Richard', 'John', 'Mary', 'Anne',
  'Victoria', 'Louis', 'Philip', 'Frederick', 'Napoleon', 'Peter', 'Catherine', 'Ivan', 'Nicholas', 'Alexander',
  'Benedict', 'Pius', 'Leo', 'Gregory', 'Innocent', 'Clement', 'Paul', 'Francis', 'Ferdinand', 'Alfonso', 'Gustav',
  'Wilhelm', 'Ramesses', 'Ptolemy', 'Constantine', 'Justinian', 'Otto', 'Rudolf', 'Sigismund', 'Boniface', 'Urban',
  'Sixtus', 'Stephen', 'Harold', 'Malcolm', 'Robert', 'David',
].join('|');
const REGNAL = new RegExp(String.raw`\b(${REGNAL_NAMES})\s+([IVXL]+)\b`, 'g');
const NUMBERED_PART = /\b(World War|Chapter|Part|Volume|Book|Act|Scene|Phase|Stage|Episode|Section|Article|Appendix|Super Bowl|Title|Type|Class|Level|Round)\s+([IVXL]+)\b(?!['\u2019]\p{L})/gu;

/** Reads roman numerals after a monarch's or pope's name ("Henry VIII" -> "Henry the Eighth") or a numbering word ("World War II" -> "World War Two"). */
export function normalizeRomanNumerals(text: string): string {
  if (!/\b[IVXL]+\b/.test(text)) return text;
  const regnal = rewrite(text, REGNAL, (m, src) => {
    const roman = m[2] ?? '';
    const value = romanToNumber(roman);
    if (value === undefined) return null;
    // "Henry I think" and "Henry I'll" hold the pronoun: "I" is a numeral only before "of" or punctuation.
    const after = src.slice(m.index + m[0].length, m.index + m[0].length + 8);
    if (roman === 'I' && (/^['\u2019]/.test(after) || (/^\s+\p{Ll}/u.test(after) && !/^\s+of\b/.test(after)))) return null;
    return `${m[1]} the ${capitalizeLike('X', cardinalWordsToOrdinal(integerToWords(String(value))))}`;
  });
  return rewrite(regnal, NUMBERED_PART, (m) => {
    const value = romanToNumber(m[2] ?? '');
    return value === undefined ? null : `${m[1]} ${capitalizeLike('X', integerToWords(String(value)))}`;
  });
}
