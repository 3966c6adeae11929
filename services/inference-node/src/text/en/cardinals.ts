/**
 * The last number pass: ordinals, fractions, versions and IP addresses, years in context, and
 * every remaining cardinal or decimal. Runs after the passes that need a number's context.
 */
import {
  digitsToWords, fractionToWords, integerToWords, numberToWords, ordinalToWords, yearToWords,
} from '../numbers.js';
import { rewrite } from './context.js';

const ORDINAL = /(?<!\d)(\d{1,3}(?:,\d{3})+|\d+)(st|nd|rd|th)(?!\w)/gi;

/** "1st" -> "first", "22nd" -> "twenty-second", "103rd" -> "one hundred third". */
export function normalizeOrdinals(text: string): string {
  if (!/\d(?:st|nd|rd|th)/i.test(text)) return text;
  return rewrite(text, ORDINAL, (m, src) => (/[\p{L}\p{N},]/u.test(src[m.index - 1] ?? ' ') ? null : ordinalToWords(m[1] ?? '')));
}

// Words after which a four-digit number is a year ("in 1999", "since 2001", "the 1999 season");
// a four-digit number that opens a sentence or precedes an era ("BC") or "'s" is one too.
const YEAR_CONTEXT = new Set([
  'in', 'since', 'from', 'until', 'till', 'by', 'of', 'during', 'circa', 'before', 'after', 'between', 'year',
  'early', 'late', 'mid', 'spring', 'summer', 'autumn', 'fall', 'winter', 'copyright', 'around', 'through', 'the',
  'AD', 'class',
]);
const ERA = /^\s*(?:BC|BCE|AD|CE|B\.C\.|A\.D\.)(?!\p{L})/u;

function isYearInContext(digits: string, src: string, index: number, end: number): boolean {
  if (digits.length !== 4 || digits < '1000' || digits > '2999') return false;
  if (ERA.test(src.slice(end, end + 6)) || src.startsWith("'s", end)) return true;
  const before = src.slice(Math.max(0, index - 16), index);
  // Edited English avoids opening a sentence with a numeral, except for years.
  if (/(?:^|[.!?]["')]?\s)["'(]?$/.test(before)) return true;
  const prev = /(\p{L}+)\s+$/u.exec(before)?.[1] ?? '';
  return YEAR_CONTEXT.has(prev) || YEAR_CONTEXT.has(prev.toLowerCase());
}

const DENOMINATORS = new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 32, 64, 100]);

function spokenFraction(numerator: string, denominator: string): string {
  const num = Number(numerator);
  if (DENOMINATORS.has(Number(denominator)) && num > 0 && num < 100) return fractionToWords(numerator, denominator);
  return `${integerToWords(numerator)} over ${integerToWords(denominator)}`;
}

const MIXED_FRACTION = /(?<!\d)(\d+)\s(\d+)\/(\d+)(?![\p{N}/])/gu;
const FRACTION = /(?<!\d)(\d+)\/(\d+)(?![\p{N}/]|\.\d)/gu;
const DOTTED_NUMBER = /(?<!\d)\d+(?:\.\d+){2,}(?!\p{N}|\.\d)/gu;
const PLAIN_NUMBER = /(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(\d+))?|\.(\d+)/g;
const MINUS = /-(?=\.?\d)/g;
const DIGIT_RUN = /-?\d+(?:-(?=\p{L}))?/gu;
const isLetter = (ch: string | undefined): boolean => ch !== undefined && /\p{L}/u.test(ch);

/** Reads letters and digits apart: "MP3" -> "MP 3", "COVID-19" -> "COVID 19", "10-year" -> "10 year". */
function separateFromLetters(m: RegExpExecArray, src: string): string | null {
  let run = m[0];
  const end = m.index + run.length;
  const letterBefore = isLetter(src[m.index - 1]);
  if (run.startsWith('-')) run = letterBefore ? ` ${run.slice(1)}` : run;
  else if (letterBefore) run = ` ${run}`;
  if (run.endsWith('-')) run = `${run.slice(0, -1)} `;
  else if (isLetter(src[end])) run = `${run} `;
  return run === m[0] ? null : run;
}

const isAfterNumber = (src: string, index: number): boolean => /[\p{N}.,/]/u.test(src[index - 1] ?? ' ');

function readPlainNumber(m: RegExpExecArray, src: string): string {
  const [whole, integer = '', fraction, bareFraction] = m;
  if (bareFraction !== undefined) return `point ${digitsToWords(bareFraction)}`;
  if (fraction !== undefined) return numberToWords(`${integer.replace(/,/g, '')}.${fraction}`);
  if (integer.includes(',')) return integerToWords(integer.replace(/,/g, ''));
  if (isYearInContext(integer, src, m.index, m.index + whole.length)) return yearToWords(Number(integer));
  // Leading zeros and very long digit strings are codes, not quantities.
  if ((integer.length > 1 && integer.startsWith('0')) || integer.length > 15) return digitsToWords(integer);
  return integerToWords(integer);
}

/** Reads every remaining number: fractions, versions, IPs, years in context, decimals and cardinals. */
export function normalizeCardinals(text: string): string {
  if (!/\d/.test(text)) return text;
  let out = text
    .replace(/\b(?:c|ca)\.\s?(?=\d{3,4}\b)/g, 'circa ')
    .replace(/(?<![\d.])(\d+)\s?[x\u00D7]\s?(\d+)(?![\d.])/g, (_m, a: string, b: string) => `${integerToWords(a)} by ${integerToWords(b)}`)
    .replace(/(?<![\d.])(\d+)'\s?(\d{1,2})"/g, (_m, ft: string, inches: string) =>
      `${integerToWords(ft)} ${ft === '1' ? 'foot' : 'feet'} ${integerToWords(inches)} ${inches === '1' ? 'inch' : 'inches'}`)
    .replace(/(\d)k\b/g, '$1 thousand')
    .replace(/(\d)\s?mn\b/g, '$1 million')
    .replace(/(\d)\s?bn\b/g, '$1 billion')
    .replace(/(\d)x\b/g, '$1 times')
    .replace(/\b911\b/g, 'nine one one');
  out = rewrite(out, DIGIT_RUN, separateFromLetters);
  out = rewrite(out, MIXED_FRACTION, (m, src) => {
    if (isAfterNumber(src, m.index)) return null;
    const [, whole = '', numerator = '', denominator = ''] = m;
    const fraction = numerator === '1' && denominator === '2' ? 'a half' : spokenFraction(numerator, denominator);
    return `${integerToWords(whole)} and ${fraction}`;
  });
  out = rewrite(out, FRACTION, (m, src) => (isAfterNumber(src, m.index) ? null : spokenFraction(m[1] ?? '', m[2] ?? '')));
  out = rewrite(out, DOTTED_NUMBER, (m, src) => {
    if (/[\p{N}.]/u.test(src[m.index - 1] ?? ' ')) return null;
    const parts = m[0].split('.');
    const isAddress = parts.length === 4 && parts.every((p) => Number(p) <= 255);
    const words = parts.map((p) => (p.length > 1 && p.startsWith('0') ? digitsToWords(p) : integerToWords(p)));
    return words.join(isAddress ? ' dot ' : ' point ');
  });
  // A hyphen before a number that follows no word is a minus sign.
  if (out.includes('-')) out = rewrite(out, MINUS, (m, src) => (/[\p{L}\p{N}]/u.test(src[m.index - 1] ?? ' ') ? null : 'minus '));
  out = rewrite(out, PLAIN_NUMBER, readPlainNumber);
  return out.includes('/') ? out.replace(/\s*\/\s*/g, ' slash ') : out;
}
