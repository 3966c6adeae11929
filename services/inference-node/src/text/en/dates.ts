/**
 * Dates ("2024-01-15", "01/15/2024", "15 January 2024", "Jan. 5, 2024"), decades ("1990s") and
 * times of day ("3:30 pm", "14:05").
 */
import { decadeToWords, integerToWords, ordinalToWords, pluralizeNumberWords, yearToWords } from '../numbers.js';
import { finalPeriod, rewrite } from './context.js';

/** English month names, January first. */
export const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
] as const;
const MONTH_KEYS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = String.raw`(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`;

/** 1-based month number of a month name or abbreviation. */
function monthNumber(word: string): number {
  return MONTH_KEYS.indexOf(word.slice(0, 3).toLowerCase()) + 1;
}

function isValidDate(month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** "January fifteenth, twenty twenty-four" */
function spokenDate(month: number, day: number, year: string | undefined): string {
  const head = `${MONTHS[month - 1] ?? ''} ${ordinalToWords(day)}`;
  return year === undefined ? head : `${head}, ${yearToWords(Number(year))}`;
}

const ISO_DATE = /(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])/g;
const SLASH_DATE = /(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})(?![\d/])/g;
const DOT_DATE = /(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d|\.\d)/g;
const MONTH_DAY = new RegExp(String.raw`\b(${MONTH})\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?(?![\p{L}\p{N}:]|[.,]\d)`, 'gu');
const DAY_MONTH = new RegExp(String.raw`\b(?:([Tt]he)\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(${MONTH})\b(\.?)(?:,?\s+(\d{4}))?(?!\d)`, 'gu');
const MONTH_YEAR = new RegExp(String.raw`\b(${MONTH})\b\.?,?\s+(\d{4})(?!\p{N})`, 'gu');
const DECADE = /(\d{3}0)'?s(?![\p{L}\p{N}])/gu;
const SHORT_DECADE = /'?([2-9]0)s(?![\p{L}\p{N}])/gu;

/** Reads numeric and written dates with an ordinal day and the year as a year, then decades. */
export function normalizeDates(text: string): string {
  if (!/\d/.test(text)) return text;
  let out = rewrite(text, ISO_DATE, (m, src) => {
    if (/[\d-]/.test(src[m.index - 1] ?? ' ')) return null;
    const month = Number(m[2]);
    const day = Number(m[3]);
    return isValidDate(month, day) ? spokenDate(month, day, m[1]) : null;
  });
  out = rewrite(out, SLASH_DATE, (m, src) => {
    if (/[\d/]/.test(src[m.index - 1] ?? ' ')) return null;
    // US order (month first) unless the first number cannot be a month.
    const a = Number(m[1]);
    const b = Number(m[2]);
    const [month, day] = a > 12 && b <= 12 ? [b, a] : [a, b];
    // Two-digit years: "24" is 2024, "99" is 1999.
    const year = m[3] ?? '';
    const fullYear = year.length === 2 ? String(Number(year) + (Number(year) < 50 ? 2000 : 1900)) : year;
    return isValidDate(month, day) ? spokenDate(month, day, fullYear) : null;
  });
  out = rewrite(out, DOT_DATE, (m, src) => {
    if (/[\d.]/.test(src[m.index - 1] ?? ' ')) return null;
    const day = Number(m[1]);
    const month = Number(m[2]);
    return isValidDate(month, day) ? spokenDate(month, day, m[3]) : null;
  });
  out = rewrite(out, MONTH_DAY, (m) => {
    const day = Number(m[2]);
    return day >= 1 && day <= 31 ? spokenDate(monthNumber(m[1] ?? ''), day, m[3]) : null;
  });
  out = rewrite(out, DAY_MONTH, (m, src) => {
    const [whole, article = 'the', dayText, month = '', dot, year] = m;
    const day = Number(dayText);
    if (day < 1 || day > 31) return null;
    const head = `${article} ${ordinalToWords(day)} of ${MONTHS[monthNumber(month) - 1] ?? month}`;
    if (year !== undefined) return `${head}, ${yearToWords(Number(year))}`;
    return dot === '.' ? head + finalPeriod(src, m.index + whole.length, 'jan') : head;
  });
  out = rewrite(out, MONTH_YEAR, (m) => `${MONTHS[monthNumber(m[1] ?? '') - 1] ?? ''} ${yearToWords(Number(m[2]))}`);
  out = rewrite(out, DECADE, (m, src) => (/[\p{L}\p{N}]/u.test(src[m.index - 1] ?? ' ') ? null : decadeToWords(Number(m[1]))));
  return rewrite(out, SHORT_DECADE, (m, src) => {
    if (/[\p{L}\p{N}']/u.test(src[m.index - 1] ?? ' ')) return null;
    return pluralizeNumberWords(integerToWords(m[1] ?? ''));
  });
}

const CLOCK = /(\d{1,2}):([0-5]\d)(?::([0-5]\d))?(?![\d:]|\.\d)(?:\s?([AaPp])\.?\s?[Mm]\b(\.)?)?/g;
const HOUR_MERIDIEM = /(\d{1,2})\s?([AaPp])\.?\s?[Mm]\b(\.)?/g;
const isAfterNumber = (src: string, index: number): boolean => /[\d:.,]/.test(src[index - 1] ?? ' ');

/** " AM" / " PM", keeping the period of "p.m." when it also ends the sentence. */
function meridiem(letter: string | undefined, dot: string | undefined, src: string, end: number): string {
  if (letter === undefined) return '';
  const word = letter.toLowerCase() === 'a' ? 'AM' : 'PM';
  return ` ${word}${dot === '.' ? finalPeriod(src, end, 'a.m') : ''}`;
}

/** Reads clock times: "3:30 pm" -> "three thirty PM", "14:05" -> "fourteen oh five", "5pm" -> "five PM". */
export function normalizeTimes(text: string): string {
  if (!/\d/.test(text)) return text;
  const clocks = rewrite(text, CLOCK, (m, src) => {
    if (isAfterNumber(src, m.index)) return null;
    const [whole, hourText, minuteText, secondText, letter, dot] = m;
    const hour = Number(hourText);
    const minute = Number(minuteText);
    if (hour > 24 || (letter !== undefined && (hour < 1 || hour > 12))) return null;
    let spoken = integerToWords(String(hour));
    if (minute === 0) spoken += letter !== undefined ? '' : hour >= 1 && hour <= 12 ? " o'clock" : ' hundred';
    else spoken += `${minute < 10 ? ' oh ' : ' '}${integerToWords(String(minute))}`;
    if (secondText !== undefined) {
      const seconds = Number(secondText);
      spoken += ` and ${integerToWords(String(seconds))} ${seconds === 1 ? 'second' : 'seconds'}`;
    }
    return spoken + meridiem(letter, dot, src, m.index + whole.length);
  });
  return rewrite(clocks, HOUR_MERIDIEM, (m, src) => {
    const hour = Number(m[1]);
    if (isAfterNumber(src, m.index) || hour < 1 || hour > 12) return null;
    return integerToWords(String(hour)) + meridiem(m[2], m[3], src, m.index + m[0].length);
  });
}
