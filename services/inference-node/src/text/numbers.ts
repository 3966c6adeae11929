/**
 * English number spelling: cardinals, decimals, ordinals, years, digit strings and fractions.
 * Works on digit strings, so integers of any size up to the decillions are exact.
 */

const ONES = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
  'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen',
] as const;
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'] as const;
const SCALES = [
  '', 'thousand', 'million', 'billion', 'trillion', 'quadrillion', 'quintillion',
  'sextillion', 'septillion', 'octillion', 'nonillion', 'decillion',
] as const;
const MAX_SPELLED_DIGITS = SCALES.length * 3;

const IRREGULAR_ORDINALS: Readonly<Record<string, string>> = {
  one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth',
};

/** Spells 0 < n < 1000. */
function spellBelowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds > 0) parts.push(`${ONES[hundreds]} hundred`);
  if (rest > 0) parts.push(spellBelowHundred(rest));
  return parts.join(' ');
}

/** Spells 0 <= n < 100. */
function spellBelowHundred(n: number): string {
  if (n < 20) return ONES[n]!;
  const unit = n % 10;
  const tens = TENS[Math.floor(n / 10)]!;
  return unit === 0 ? tens : `${tens}-${ONES[unit]}`;
}

/** Reads a string of digits one by one ("007" -> "zero zero seven"). */
export function digitsToWords(digits: string): string {
  const words: string[] = [];
  for (const ch of digits) {
    const d = ch.charCodeAt(0) - 48;
    if (d >= 0 && d <= 9) words.push(ONES[d]!);
  }
  return words.join(' ');
}

/** Spells a string of ASCII digits as a cardinal; leading zeros are ignored. */
export function integerToWords(digits: string): string {
  const trimmed = digits.replace(/^0+/, '');
  if (trimmed === '') return 'zero';
  if (trimmed.length > MAX_SPELLED_DIGITS) return digitsToWords(trimmed);
  const parts: string[] = [];
  let scale = 0;
  for (let end = trimmed.length; end > 0; end -= 3, scale++) {
    const group = Number(trimmed.slice(Math.max(0, end - 3), end));
    if (group === 0) continue;
    const scaleWord = SCALES[scale]!;
    parts.push(scaleWord === '' ? spellBelowThousand(group) : `${spellBelowThousand(group)} ${scaleWord}`);
  }
  return parts.reverse().join(' ');
}

/** Expands a JavaScript number to plain decimal notation ("1e-7" -> "0.0000001"). */
function plainDecimal(n: number): string {
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (m === null) return s;
  const [, sign = '', intPart = '', fracPart = '', expText = '0'] = m;
  const exp = Number(expText);
  const digits = intPart + fracPart;
  const point = intPart.length + exp;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A parsed decimal literal. */
interface DecimalParts {
  readonly negative: boolean;
  readonly integer: string;
  readonly fraction: string;
}

const DECIMAL_LITERAL = /^([+\-\u2212]?)(\d*)(?:\.(\d*))?$/;
const GROUPED_LITERAL = /^[+\-\u2212]?\d{1,3}(?:,\d{3})+(?:\.\d*)?$/;

function parseDecimal(value: number | string): DecimalParts {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`numberToWords: ${value} is not a finite number`);
    text = plainDecimal(value);
  } else {
    text = value.trim();
    if (GROUPED_LITERAL.test(text)) text = text.replace(/,/g, '');
  }
  const m = DECIMAL_LITERAL.exec(text);
  const integer = m?.[2] ?? '';
  const fraction = m?.[3] ?? '';
  if (m === null || (integer === '' && fraction === '')) {
    throw new RangeError(`numberToWords: "${String(value)}" is not a decimal number`);
  }
  return { negative: m[1] === '-' || m[1] === '\u2212', integer, fraction };
}

/**
 * Spells a non-negative or negative integer/decimal in English words (US style, no "and"):
 * `1234` -> "one thousand two hundred thirty-four", `"-3.14"` -> "minus three point one four".
 * Strings may use comma thousands separators. Throws RangeError for anything that is not a number.
 */
export function numberToWords(n: number | string): string {
  const { negative, integer, fraction } = parseDecimal(n);
  let words = integerToWords(integer);
  if (fraction !== '') words += ` point ${digitsToWords(fraction)}`;
  const isZero = /^0*$/.test(integer) && /^0*$/.test(fraction);
  return negative && !isZero ? `minus ${words}` : words;
}

/** Turns spelled cardinal words into ordinal words ("twenty-one" -> "twenty-first"). */
export function cardinalWordsToOrdinal(words: string): string {
  const m = /^(.*?)([a-z]+)$/.exec(words);
  if (m === null) return words;
  const [, head = '', last = ''] = m;
  const irregular = IRREGULAR_ORDINALS[last];
  if (irregular !== undefined) return head + irregular;
  if (last.endsWith('y')) return `${head}${last.slice(0, -1)}ieth`;
  return `${head}${last}th`;
}

/** Spells a non-negative integer (digits, commas allowed) as an ordinal: "103" -> "one hundred third". */
export function ordinalToWords(n: number | string): string {
  return cardinalWordsToOrdinal(numberToWords(n));
}

/**
 * Reads a year the way people say it: 1999 -> "nineteen ninety-nine", 2000 -> "two thousand",
 * 2005 -> "two thousand five", 2024 -> "twenty twenty-four", 1900 -> "nineteen hundred", 1905 -> "nineteen oh five".
 */
export function yearToWords(year: number): string {
  if (!Number.isInteger(year) || year < 0) return numberToWords(year);
  if (year < 1000 || year >= 10000) return integerToWords(String(year));
  const high = Math.floor(year / 100);
  const low = year % 100;
  if (year % 1000 < 10) return integerToWords(String(year));
  if (low === 0) return `${spellBelowHundred(high)} hundred`;
  if (low < 10) return `${spellBelowHundred(high)} oh ${ONES[low]}`;
  return `${spellBelowHundred(high)} ${spellBelowHundred(low)}`;
}

/** Spells a decade from its first year: 1990 -> "nineteen nineties", 2000 -> "two thousands", 1900 -> "nineteen hundreds". */
export function decadeToWords(startYear: number): string {
  return pluralizeNumberWords(yearToWords(startYear));
}

/** Plural of spelled number words: "nineteen ninety" -> "nineteen nineties", "six" -> "sixes". */
export function pluralizeNumberWords(words: string): string {
  if (words.endsWith('y')) return `${words.slice(0, -1)}ies`;
  if (words.endsWith('x')) return `${words}es`;
  return `${words}s`;
}

const DENOMINATORS: Readonly<Record<number, readonly [string, string]>> = {
  2: ['half', 'halves'],
  4: ['quarter', 'quarters'],
};

/** Reads a simple fraction: (3, 4) -> "three quarters", (1, 2) -> "one half", (5, 8) -> "five eighths". */
export function fractionToWords(numerator: string, denominator: string): string {
  const num = integerToWords(numerator);
  const den = Number(denominator);
  const singular = Number(numerator) === 1;
  const named = DENOMINATORS[den];
  if (named !== undefined) return `${num} ${singular ? named[0] : named[1]}`;
  const ordinal = cardinalWordsToOrdinal(integerToWords(denominator));
  return `${num} ${singular ? ordinal : `${ordinal}s`}`;
}
