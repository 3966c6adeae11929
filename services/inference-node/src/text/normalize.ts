/**
 * Text normalization for speech. English rewrites what an engine cannot read aloud (numbers,
 * currency, dates, times, units, abbreviations, URLs, symbols) as words, keeping the punctuation
 * that carries prosody (. , ? ! ; :) and leaving acronyms for the engine to spell. The passes run
 * in a fixed order: each one sees the words the earlier ones wrote, so context-free numbers go last.
 */
import { cleanText, isEnglish } from './cleanup.js';
import { normalizeAddresses, normalizePhones } from './en/addresses.js';
import { normalizeMoney, normalizeRanges, normalizeUnits } from './en/amounts.js';
import { normalizeCardinals, normalizeOrdinals } from './en/cardinals.js';
import { normalizeDates, normalizeTimes } from './en/dates.js';
import { normalizeSymbols } from './en/symbols.js';
import { normalizeAbbreviations, normalizeRomanNumerals } from './en/words.js';

const CHARACTER_MAP: Readonly<Record<string, string>> = {
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'", '\u0060': "'", '\u00B4': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"', '\u00AB': '"', '\u00BB': '"',
  '\u2026': '...', '\u2010': '-', '\u2011': '-', '\u2212': '-', '\uFE63': '-', '\uFF0D': '-',
  '\u203C': '!!', '\u2049': '!?', '\u2048': '?!', '\u00A9': ' copyright ', '\u00AE': '', '\u2122': '', '\u2120': '',
  '\u2103': '\u00B0C', '\u2109': '\u00B0F', '\u00A0': ' ',
  '\u00BD': ' 1/2', '\u2153': ' 1/3', '\u2154': ' 2/3', '\u00BC': ' 1/4', '\u00BE': ' 3/4', '\u2155': ' 1/5',
  '\u2156': ' 2/5', '\u2157': ' 3/5', '\u2158': ' 4/5', '\u2159': ' 1/6', '\u215A': ' 5/6', '\u215B': ' 1/8',
  '\u215C': ' 3/8', '\u215D': ' 5/8', '\u215E': ' 7/8',
};
const MAPPED_CHARACTER = new RegExp(`[${Object.keys(CHARACTER_MAP).join('')}]`, 'g');
const EMOJI = /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\u20E3\uFE0E\uFE0F\u200D]/gu;

/** Straightens quotes, spells out vulgar fractions, turns dashes into pauses or ranges, drops emoji. */
function normalizeCharacters(text: string): string {
  let out = text.replace(MAPPED_CHARACTER, (ch) => CHARACTER_MAP[ch] ?? ch);
  if (/[\u2012-\u2015]|--|\s-\s/.test(out)) {
    out = out
      // A dash between numbers is a range ("1990–1995"); any other dash is a pause.
      .replace(/(\d)\s*[\u2012\u2013\u2014]\s*(?=[$\u20AC\u00A3\u00A5]?\d)/g, '$1-')
      .replace(/\s*(?:[\u2012-\u2015]|--+)\s*|\s+-\s+(?![$\u20AC\u00A3\u00A5]?\d)/g, ', ');
  }
  return out.replace(EMOJI, '');
}

/** Collapses the spaces and doubled or dangling punctuation the rewrites leave behind. */
function tidy(text: string): string {
  return text
    .replace(/ {2,}/g, ' ')
    .replace(/ +([,.;:!?])/g, '$1')
    .replace(/,(?:\s*,)+/g, ',')
    .replace(/,\s*([.;:!?])/g, '$1')
    .replace(/([;:!?]),/g, '$1')
    .replace(/(^|\n)[ ,]+/g, '$1')
    .replace(/[ ,]+(?=\n|$)/g, '')
    .replace(/,(?=[\p{L}\p{N}"])/gu, ', ')
    .trim();
}

/** English normalization of text that cleanText has already cleaned. */
export function normalizeEnglish(text: string): string {
  let out = normalizeCharacters(text);
  out = normalizeAddresses(out);
  out = normalizePhones(out);
  out = normalizeDates(out);
  out = normalizeTimes(out);
  out = normalizeRanges(out);
  out = normalizeMoney(out);
  out = normalizeUnits(out);
  out = normalizeOrdinals(out);
  out = normalizeAbbreviations(out);
  out = normalizeRomanNumerals(out);
  out = normalizeSymbols(out);
  out = normalizeCardinals(out);
  return tidy(out);
}

/**
 * Normalizes text for speech (no splitting). English ("en*") gets the full rewrite of numbers,
 * currency, dates, times, units, abbreviations, URLs and symbols; other languages only get
 * control-character and white-space clean-up.
 * @param language BCP-47 tag. @default "en"
 */
export function normalizeText(text: string, language = 'en'): string {
  const clean = cleanText(text);
  return isEnglish(language) ? normalizeEnglish(clean) : clean;
}
