/**
 * English text normalization: rewrites what an engine cannot read aloud (numbers, currency, dates,
 * times, units, abbreviations, URLs, symbols) as words, keeping the punctuation that carries
 * prosody (. , ? ! ; :). Acronyms are left for the engine to spell.
 */
import {
  BEFORE_NUMBER, FINAL_BEFORE_CAPITAL, FINAL_BEFORE_OPENER, NEVER_FINAL, TITLES,
  isSentenceOpener, periodEndsSentence,
} from './abbreviations.js';
import { cleanText, isEnglish } from './cleanup.js';
import {
  cardinalWordsToOrdinal, decadeToWords, digitsToWords, fractionToWords, integerToWords, numberToWords,
  ordinalToWords, pluralizeNumberWords, yearToWords,
} from './numbers.js';

type Replacer = (m: RegExpExecArray, src: string) => string;

/** Like String.replace with a global regex, but the callback gets the typed match and the source. */
function rewrite(src: string, re: RegExp, fn: Replacer): string {
  re.lastIndex = 0;
  let out = '';
  let last = 0;
  for (let m = re.exec(src); m !== null; m = re.exec(src)) {
    out += src.slice(last, m.index) + fn(m, src);
    last = m.index + m[0].length;
    if (m[0].length === 0) re.lastIndex++;
  }
  return last === 0 && out === '' ? src : out + src.slice(last);
}

/** "." when the abbreviation ending at `end` (its period included) also ends the sentence. */
function finalPeriod(src: string, end: number, word: string): string {
  return periodEndsSentence(word, src.slice(end, end + 48)) ? '.' : '';
}

/**
 * The word before `index` when it can tell a name from a street: "" at the start of a sentence,
 * after . ! ? ; : and when that word itself opens the sentence (its capital says nothing).
 */
function previousWord(src: string, index: number): string {
  const before = src.slice(Math.max(0, index - 60), index);
  const m = /([\p{L}\p{N}']+)([^\p{L}\p{N}]*)$/u.exec(before);
  if (m === null || /[.!?;:]/.test(m[2] ?? '')) return '';
  const head = before.slice(0, m.index).trimEnd();
  const opensSentence = (head === '' && before.length === index) || /[.!?]["')\]]*$/.test(head);
  return opensSentence ? '' : m[1] ?? '';
}

/** The word after `index` in `src` ("" at the end). */
function nextWord(src: string, index: number): string {
  return /^\s+([\p{L}\p{N}'][\p{L}\p{N}'.-]*)/u.exec(src.slice(index, index + 40))?.[1] ?? '';
}

const isCapitalized = (word: string): boolean => /^\p{Lu}/u.test(word);

// A decimal literal with optional comma grouping: 1,234.56 / 12 / .5
const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+`;
const NOT_AFTER_WORD = String.raw`(?<![\p{L}\p{N}_])`;

// ---------------------------------------------------------------------------------------------
// Characters

const FRACTION_CHARS: Readonly<Record<string, string>> = {
  '\u00BD': '1/2', '\u2153': '1/3', '\u2154': '2/3', '\u00BC': '1/4', '\u00BE': '3/4', '\u2155': '1/5',
  '\u2156': '2/5', '\u2157': '3/5', '\u2158': '4/5', '\u2159': '1/6', '\u215A': '5/6', '\u215B': '1/8',
  '\u215C': '3/8', '\u215D': '5/8', '\u215E': '7/8',
};

/** Straightens quotes, normalizes dashes and ellipses, drops emoji. */
function normalizeCharacters(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201A\u201B\u2032\u0060\u00B4]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB]/g, '"')
    .replace(/\u2026/g, '...')
    .replace(/[\u2010\u2011]/g, '-')
    .replace(/[\u2212\uFE63\uFF0D]/g, '-')
    .replace(/\u203C/g, '!!')
    .replace(/\u2049/g, '!?')
    .replace(/\u2048/g, '?!')
    .replace(/\u00A9/g, ' copyright ')
    .replace(/[\u00AE\u2122\u2120]/g, '')
    .replace(/\u2103/g, '\u00B0C')
    .replace(/\u2109/g, '\u00B0F')
    .replace(/(\d)?([\u00BC-\u00BE\u2153-\u215E])/g, (_m, d: string | undefined, f: string) => `${d === undefined ? '' : `${d} `}${FRACTION_CHARS[f] ?? ''}`)
    // Dashes between numbers are ranges; other dashes (and spaced hyphens, "--") are pauses.
    .replace(/(\d)\s*[\u2012\u2013\u2014]\s*(?=[$\u20AC\u00A3\u00A5]?\d)/g, '$1-')
    .replace(/\s*(?:[\u2012\u2013\u2014\u2015]|--+)\s*|\s+-\s+(?![$\u20AC\u00A3\u00A5]?\d)/g, ', ')
    .replace(/[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\u20E3\uFE0E\uFE0F\u200D]/gu, '');
}

// ---------------------------------------------------------------------------------------------
// URLs and e-mail addresses

const ADDRESS_SYMBOLS: Readonly<Record<string, string>> = {
  '.': 'dot', '@': 'at', '/': 'slash', '-': 'dash', _: 'underscore', '+': 'plus', ':': 'colon',
  '?': 'question mark', '=': 'equals', '&': 'and', '#': 'hash', '%': 'percent', '~': 'tilde',
};

/** Reads an address symbol by symbol: "a.b@c.org" -> "a dot b at c dot org". */
function spellAddress(address: string): string {
  return address
    .replace(/[.@/\-_+:?=&#%~]/g, (ch) => ` ${ADDRESS_SYMBOLS[ch] ?? ''} `)
    .replace(/\s+/g, ' ')
    .trim();
}

const EMAIL = /(?<![\w.+-])[A-Za-z0-9][\w.%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])/g;
const TLDS = 'com|org|net|edu|gov|mil|int|io|dev|ai|app|co|uk|us|ca|au|de|fr|es|it|nl|eu|info|biz|me|tv|ly|xyz|gg|ru|jp|cn|in|br';
const URL = new RegExp(
  String.raw`(?<![\w@.-])(?:(?:https?|ftp):\/\/[^\s<>"]+|www\.[^\s<>"]+|(?:[a-z0-9-]+\.)+(?:${TLDS})(?:\/[^\s<>"]*)?(?![\w-]))`,
  'gi',
);

function readUrl(url: string): string {
  let body = url.replace(/^(?:https?|ftp):\/\//i, '');
  let prefix = '';
  if (/^www\./i.test(body)) {
    prefix = 'W W W dot ';
    body = body.slice(4);
  }
  return prefix + spellAddress(body.replace(/\/+$/, ''));
}

function normalizeAddresses(text: string): string {
  const withEmails = rewrite(text, EMAIL, (m) => spellAddress(m[0]));
  return rewrite(withEmails, URL, (m) => {
    // Sentence punctuation after a URL is not part of it.
    const [, url = m[0], trailing = ''] = /^(.*?)([.,;:!?'")\]]*)$/s.exec(m[0]) ?? [];
    return readUrl(url) + trailing;
  });
}

// ---------------------------------------------------------------------------------------------
// Phone numbers: digit by digit, one pause per group

const PHONE_NANP = /(?<![\w+\-.])(?:(\+?1)[\s.-]?)?(\(\d{3}\)|\d{3})[\s.-]?(\d{3})[\s.-](\d{4})(?![\w-]|\.\d)/g;
const PHONE_INTL = /(?<![\w+])\+(\d{1,3})((?:[\s.-]?\(?\d{1,4}\)?){2,5})(?![\w-]|\.\d)/g;

function readPhoneGroups(groups: readonly string[]): string {
  return groups.map((g) => digitsToWords(g)).filter((g) => g !== '').join(', ');
}

function normalizePhones(text: string): string {
  const nanp = rewrite(text, PHONE_NANP, (m) => {
    const [, country, area = '', exchange = '', line = ''] = m;
    const lead = country === undefined ? '' : `${country.startsWith('+') ? 'plus ' : ''}${digitsToWords(country)}, `;
    return lead + readPhoneGroups([area, exchange, line]);
  });
  return rewrite(nanp, PHONE_INTL, (m) => {
    const groups = (m[2] ?? '').split(/\D+/).filter((g) => g !== '');
    if (groups.join('').length + (m[1] ?? '').length < 7) return m[0];
    return `plus ${digitsToWords(m[1] ?? '')}, ${readPhoneGroups(groups)}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Dates and decades

const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
] as const;
const MONTH = String.raw`(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`;

function monthName(word: string): string {
  const index = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].indexOf(word.slice(0, 3).toLowerCase());
  return MONTHS[index] ?? word;
}

function isValidDay(month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** "January fifteenth, twenty twenty-four" */
function spokenDate(month: number, day: number, year: string | undefined): string {
  const head = `${MONTHS[month - 1] ?? ''} ${ordinalToWords(day)}`;
  return year === undefined ? head : `${head}, ${yearToWords(Number(year))}`;
}

const ISO_DATE = /(?<![\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])/g;
const SLASH_DATE = /(?<![\d/])(\d{1,2})\/(\d{1,2})\/(\d{4})(?![\d/])/g;
const DOT_DATE = /(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?![\d]|\.\d)/g;
const MONTH_DAY = new RegExp(String.raw`\b(${MONTH})(\.?)\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?(?![\p{L}\p{N}:]|[.,]\d)`, 'gu');
const DAY_MONTH = new RegExp(String.raw`\b(?:([Tt]he)\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(${MONTH})\b(\.?)(?:,?\s+(\d{4}))?(?!\d)`, 'gu');
const MONTH_YEAR = new RegExp(String.raw`\b(${MONTH})\b(\.?),?\s+(\d{4})(?![\p{N}])`, 'gu');

function normalizeDates(text: string): string {
  let out = rewrite(text, ISO_DATE, (m) => {
    const month = Number(m[2]);
    const day = Number(m[3]);
    return isValidDay(month, day) ? spokenDate(month, day, m[1]) : m[0];
  });
  out = rewrite(out, SLASH_DATE, (m) => {
    const a = Number(m[1]);
    const b = Number(m[2]);
    const [month, day] = a > 12 && b <= 12 ? [b, a] : [a, b];
    return isValidDay(month, day) ? spokenDate(month, day, m[3]) : m[0];
  });
  out = rewrite(out, DOT_DATE, (m) => {
    const day = Number(m[1]);
    const month = Number(m[2]);
    return isValidDay(month, day) ? spokenDate(month, day, m[3]) : m[0];
  });
  out = rewrite(out, MONTH_DAY, (m) => {
    const day = Number(m[3]);
    if (day < 1 || day > 31) return m[0];
    const month = MONTHS.indexOf(monthName(m[1] ?? '') as (typeof MONTHS)[number]) + 1;
    return spokenDate(month, day, m[4]);
  });
  out = rewrite(out, DAY_MONTH, (m, src) => {
    const [whole, article = 'the', dayText, month = '', dot, year] = m;
    const day = Number(dayText);
    if (day < 1 || day > 31) return whole;
    const head = `${article} ${ordinalToWords(day)} of ${monthName(month)}`;
    if (year !== undefined) return `${head}, ${yearToWords(Number(year))}`;
    return dot === '.' ? head + finalPeriod(src, m.index + whole.length, 'jan') : head;
  });
  out = rewrite(out, MONTH_YEAR, (m) => `${monthName(m[1] ?? '')} ${yearToWords(Number(m[3]))}`);
  // Decades: 1990s, 1990's, '90s, 90s.
  out = rewrite(out, /(?<![\p{L}\p{N}])(\d{3}0)'?s(?![\p{L}\p{N}])/gu, (m) => decadeToWords(Number(m[1])));
  return rewrite(out, /(?<![\p{L}\p{N}'])'?([2-9]0)s(?![\p{L}\p{N}])/gu, (m) => pluralizeNumberWords(integerToWords(m[1] ?? '')));
}

// ---------------------------------------------------------------------------------------------
// Times of day

const CLOCK = /(?<![\d:.,])(\d{1,2}):([0-5]\d)(?::([0-5]\d))?(?![\d:]|\.\d)(?:\s?([AaPp])\.?\s?[Mm]\b(\.)?)?/g;
const HOUR_MERIDIEM = /(?<![\d:.,])(\d{1,2})\s?([AaPp])\.?\s?[Mm]\b(\.)?/g;

function meridiem(letter: string | undefined, dotted: string | undefined, src: string, end: number): string {
  if (letter === undefined) return '';
  const word = letter.toLowerCase() === 'a' ? 'AM' : 'PM';
  return ` ${word}${dotted === '.' ? finalPeriod(src, end, 'a.m') : ''}`;
}

function normalizeTimes(text: string): string {
  const clocks = rewrite(text, CLOCK, (m, src) => {
    const hour = Number(m[1]);
    const minute = Number(m[2]);
    if (hour > 24 || (m[4] !== undefined && (hour < 1 || hour > 12))) return m[0];
    let spoken = integerToWords(String(hour));
    if (minute === 0) spoken += m[4] !== undefined ? '' : hour >= 1 && hour <= 12 ? " o'clock" : ' hundred';
    else spoken += minute < 10 ? ` oh ${integerToWords(String(minute))}` : ` ${integerToWords(String(minute))}`;
    if (m[3] !== undefined) {
      const seconds = Number(m[3]);
      spoken += ` and ${integerToWords(String(seconds))} ${seconds === 1 ? 'second' : 'seconds'}`;
    }
    return spoken + meridiem(m[4], m[5], src, m.index + m[0].length);
  });
  return rewrite(clocks, HOUR_MERIDIEM, (m, src) => {
    const hour = Number(m[1]);
    if (hour < 1 || hour > 12) return m[0];
    return integerToWords(String(hour)) + meridiem(m[2], m[3], src, m.index + m[0].length);
  });
}

// ---------------------------------------------------------------------------------------------
// Number ranges: "10-20" -> "10 to 20", year ranges read as years

const RANGE = new RegExp(
  String.raw`${NOT_AFTER_WORD}(?<![.,\-/])(${NUM})-([$\u20AC\u00A3\u00A5]?)(${NUM})(?![\p{N}]|[\-/.,]\d)`, 'gu',
);

function isYear(digits: string): boolean {
  return /^[12]\d{3}$/.test(digits);
}

function normalizeRanges(text: string): string {
  return rewrite(text, RANGE, (m) => {
    const [, from = '', currency = '', to = ''] = m;
    if (currency === '' && isYear(from) && isYear(to) && Number(from) < Number(to)) {
      return `${yearToWords(Number(from))} to ${yearToWords(Number(to))}`;
    }
    return `${from} to ${currency}${to}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Currency and percentages

interface Currency {
  readonly one: string;
  readonly many: string;
  readonly minorOne?: string;
  readonly minorMany?: string;
}

const CURRENCIES: Readonly<Record<string, Currency>> = {
  $: { one: 'dollar', many: 'dollars', minorOne: 'cent', minorMany: 'cents' },
  US$: { one: 'US dollar', many: 'US dollars', minorOne: 'cent', minorMany: 'cents' },
  '\u20AC': { one: 'euro', many: 'euros', minorOne: 'cent', minorMany: 'cents' },
  '\u00A3': { one: 'pound', many: 'pounds', minorOne: 'penny', minorMany: 'pence' },
  '\u00A5': { one: 'yen', many: 'yen' },
  '\u20B9': { one: 'rupee', many: 'rupees', minorOne: 'paisa', minorMany: 'paise' },
  '\u20A9': { one: 'won', many: 'won' },
};

const SCALE_WORDS: Readonly<Record<string, string>> = {
  k: 'thousand', K: 'thousand', thousand: 'thousand', m: 'million', M: 'million', mn: 'million', million: 'million',
  b: 'billion', B: 'billion', bn: 'billion', billion: 'billion', t: 'trillion', T: 'trillion', tn: 'trillion', trillion: 'trillion',
};
// Letter suffixes only count when attached: "$5M", "$2bn".
const SCALE = '(mn|bn|tn|[kKmMbBtT])';

const CURRENCY_BEFORE = new RegExp(
  String.raw`${NOT_AFTER_WORD}(-)?(US\$|[$\u20AC\u00A3\u00A5\u20B9\u20A9])\s?(${NUM})(?:\s?(thousand|million|billion|trillion)|${SCALE})?(?![\p{L}\p{N}\-])`, 'gu',
);
const CURRENCY_AFTER = new RegExp(
  String.raw`${NOT_AFTER_WORD}(-)?(${NUM})(?:\s?(thousand|million|billion|trillion))?\s?([\u20AC\u00A3\u00A5\u20B9\u20A9\u00A2])`, 'gu',
);

function spokenAmount(amount: string, currency: Currency, scale: string | undefined): string {
  const plain = amount.replace(/,/g, '');
  if (scale !== undefined) return `${numberToWords(plain)} ${scale} ${currency.many}`;
  const [major = '', minor] = plain.split('.');
  const majorWords = `${integerToWords(major)} ${Number(major) === 1 ? currency.one : currency.many}`;
  if (minor === undefined || /^0+$/.test(minor)) return majorWords;
  if (minor.length > 2 || currency.minorOne === undefined || currency.minorMany === undefined) {
    return `${numberToWords(plain)} ${currency.many}`;
  }
  const cents = Number(minor.padEnd(2, '0'));
  const minorWords = `${integerToWords(String(cents))} ${cents === 1 ? currency.minorOne : currency.minorMany}`;
  return Number(major) === 0 ? minorWords : `${majorWords} and ${minorWords}`;
}

const CENTS: Currency = { one: 'cent', many: 'cents' };

function normalizeMoney(text: string): string {
  const before = rewrite(text, CURRENCY_BEFORE, (m) => {
    const currency = CURRENCIES[m[2] ?? ''];
    if (currency === undefined) return m[0];
    const suffix = m[4] ?? m[5];
    const scale = suffix === undefined ? undefined : SCALE_WORDS[suffix];
    return (m[1] === undefined ? '' : 'minus ') + spokenAmount(m[3] ?? '', currency, scale);
  });
  const after = rewrite(before, CURRENCY_AFTER, (m) => {
    const currency = m[4] === '\u00A2' ? CENTS : CURRENCIES[m[4] ?? ''];
    if (currency === undefined) return m[0];
    return (m[1] === undefined ? '' : 'minus ') + spokenAmount(m[2] ?? '', currency, m[3]);
  });
  const percent = new RegExp(String.raw`${NOT_AFTER_WORD}(-)?(${NUM})\s?%`, 'gu');
  return rewrite(after, percent, (m) => `${numberToWords((m[1] ?? '') + (m[2] ?? ''))} percent`);
}

// ---------------------------------------------------------------------------------------------
// Units after numbers

const UNITS: Readonly<Record<string, readonly [string, string]>> = {
  mm: ['millimeter', 'millimeters'], cm: ['centimeter', 'centimeters'], m: ['meter', 'meters'],
  km: ['kilometer', 'kilometers'], '\u00B5m': ['micrometer', 'micrometers'], '\u03BCm': ['micrometer', 'micrometers'],
  ft: ['foot', 'feet'], yd: ['yard', 'yards'], mi: ['mile', 'miles'],
  'm\u00B2': ['square meter', 'square meters'], 'km\u00B2': ['square kilometer', 'square kilometers'],
  'cm\u00B2': ['square centimeter', 'square centimeters'], 'ft\u00B2': ['square foot', 'square feet'],
  'm\u00B3': ['cubic meter', 'cubic meters'], 'sq ft': ['square foot', 'square feet'],
  mins: ['minute', 'minutes'], secs: ['second', 'seconds'],
  mph: ['mile per hour', 'miles per hour'], kph: ['kilometer per hour', 'kilometers per hour'],
  'km/h': ['kilometer per hour', 'kilometers per hour'], 'm/s': ['meter per second', 'meters per second'],
  mg: ['milligram', 'milligrams'], g: ['gram', 'grams'], kg: ['kilogram', 'kilograms'],
  lb: ['pound', 'pounds'], lbs: ['pound', 'pounds'], oz: ['ounce', 'ounces'],
  ml: ['milliliter', 'milliliters'], mL: ['milliliter', 'milliliters'], l: ['liter', 'liters'], L: ['liter', 'liters'],
  gal: ['gallon', 'gallons'], ms: ['millisecond', 'milliseconds'], sec: ['second', 'seconds'],
  min: ['minute', 'minutes'], h: ['hour', 'hours'], hr: ['hour', 'hours'], hrs: ['hour', 'hours'],
  Hz: ['hertz', 'hertz'], kHz: ['kilohertz', 'kilohertz'], MHz: ['megahertz', 'megahertz'], GHz: ['gigahertz', 'gigahertz'],
  KB: ['kilobyte', 'kilobytes'], kB: ['kilobyte', 'kilobytes'], MB: ['megabyte', 'megabytes'],
  GB: ['gigabyte', 'gigabytes'], TB: ['terabyte', 'terabytes'],
  Mbps: ['megabit per second', 'megabits per second'], Gbps: ['gigabit per second', 'gigabits per second'],
  kW: ['kilowatt', 'kilowatts'], kWh: ['kilowatt hour', 'kilowatt hours'], W: ['watt', 'watts'],
  V: ['volt', 'volts'], mAh: ['milliamp hour', 'milliamp hours'], dB: ['decibel', 'decibels'],
  kcal: ['kilocalorie', 'kilocalories'], px: ['pixel', 'pixels'],
  '\u00B0C': ['degree Celsius', 'degrees Celsius'], '\u00B0F': ['degree Fahrenheit', 'degrees Fahrenheit'],
  '\u00B0': ['degree', 'degrees'],
};

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const UNIT_PATTERN = Object.keys(UNITS).sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
const MEASURE = new RegExp(String.raw`${NOT_AFTER_WORD}(-)?(${NUM})\s?(${UNIT_PATTERN})(?![\p{L}\p{N}\u00B2\u00B3])`, 'gu');

function normalizeUnits(text: string): string {
  return rewrite(text, MEASURE, (m) => {
    const unit = UNITS[m[3] ?? ''];
    if (unit === undefined) return m[0];
    const amount = (m[1] ?? '') + (m[2] ?? '');
    const singular = /^-?1$/.test(amount);
    return `${numberToWords(amount)} ${singular ? unit[0] : unit[1]}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Abbreviations, acronyms and initials

const ORDINAL = /(?<![\p{L}\p{N}])(\d{1,3}(?:,\d{3})+|\d+)(st|nd|rd|th)(?![\p{L}\p{N}])/giu;

/** `spoken` with a capital first letter when `written` has one. */
function capitalizeLike(written: string, spoken: string): string {
  return /^\p{Lu}/u.test(written) && /^\p{Ll}/u.test(spoken) ? spoken[0]!.toUpperCase() + spoken.slice(1) : spoken;
}

const lookup = (table: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

const TITLE_WORD = /\b(Mr|Mrs|Ms|Mx|Dr|Prof|Rev|Hon|Gen|Capt|Lt|Sgt|Col|Maj|Gov|Sen|Rep|Pres|Fr|Mt|Ft|Messrs)(\.)?(?![\p{L}\p{N}])/gu;
// Titles that may be written without a period in British style ("Mr Smith").
const UNDOTTED_TITLES = new Set(['mr', 'mrs', 'ms', 'mx', 'dr', 'prof']);

function expandTitle(m: RegExpExecArray, src: string): string {
  const [whole, title = '', dot] = m;
  const key = title.toLowerCase();
  const next = nextWord(src, m.index + whole.length);
  const nextIsName = isCapitalized(next) && !isSentenceOpener(next);
  if (key === 'dr' && dot !== undefined) {
    const prev = previousWord(src, m.index);
    const afterStreetName = isCapitalized(prev) && !isSentenceOpener(prev) && !nextIsName;
    if (afterStreetName) return `Drive${finalPeriod(src, m.index + whole.length, 'st')}`;
  }
  if (dot === undefined && !(UNDOTTED_TITLES.has(key) && nextIsName)) return whole;
  // "Mr." and "Dr." are always titles; the rarer ones only before a name.
  if (!UNDOTTED_TITLES.has(key) && !nextIsName) return whole;
  return lookup(TITLES, key) ?? whole;
}

/** "St." is Saint before a name ("St. Louis") and Street after one ("Main St."). */
function expandSaintOrStreet(m: RegExpExecArray, src: string): string {
  const end = m.index + m[0].length;
  const prev = previousWord(src, m.index);
  const next = nextWord(src, end);
  const afterName = (isCapitalized(prev) && !isSentenceOpener(prev)) || /^\d/.test(prev);
  if (!afterName && isCapitalized(next)) return 'Saint';
  return `Street${m[1] === '.' ? finalPeriod(src, end, 'st') : ''}`;
}

/** Builds one regex for a table of dotted abbreviations; `.` inside keys is literal. */
function abbreviationPattern(keys: readonly string[], flags: string, suffix = ''): RegExp {
  const alternatives = [...keys].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
  return new RegExp(String.raw`(?<![\p{L}\p{N}.])(${alternatives})\.${suffix}`, flags);
}

const GENERAL_ABBREVIATIONS = abbreviationPattern(
  [...Object.keys(NEVER_FINAL), ...Object.keys(FINAL_BEFORE_CAPITAL), 'inc', 'ltd', 'corp', 'co', 'jr', 'sr', 'ave', 'blvd', 'rd', 'apt', 'dept', 'univ', 'assn', 'bros', 'ph.d'],
  'giu',
);
const NUMBERED_ABBREVIATIONS = abbreviationPattern(Object.keys(BEFORE_NUMBER), 'giu', String.raw`\s?(?=\d)`);
const DOTTED_ACRONYM = /(?<![\p{L}\p{N}.])((?:\p{Lu}\.){1,}\p{Lu})(\.)?(?![\p{L}\p{N}])/gu;
const INITIAL = /(?<![\p{L}\p{N}.'])(\p{Lu})\.(?=\s+\p{Lu})/gu;

function normalizeAbbreviations(text: string): string {
  let out = rewrite(text, NUMBERED_ABBREVIATIONS, (m) => {
    const word = m[1] ?? '';
    return `${capitalizeLike(word, lookup(BEFORE_NUMBER, word.toLowerCase()) ?? word)} `;
  });
  out = out.replace(/#\s?(?=\d)/g, 'number ');
  out = rewrite(out, /\bet al\./g, (m, src) => `and others${finalPeriod(src, m.index + m[0].length, 'al')}`);
  out = rewrite(out, /\bSt\b(\.)?(?![\p{L}\p{N}'])/gu, expandSaintOrStreet);
  out = rewrite(out, TITLE_WORD, expandTitle);
  out = rewrite(out, GENERAL_ABBREVIATIONS, (m, src) => {
    const word = m[1] ?? '';
    const key = word.toLowerCase();
    // "Co." and "Inc." are names only when capitalized; "co." is rarely an abbreviation at all.
    if (key === word && ['co', 'inc', 'ltd', 'corp', 'rd', 'ave'].includes(key)) return m[0];
    const spoken = lookup(NEVER_FINAL, key) ?? lookup(FINAL_BEFORE_CAPITAL, key) ?? lookup(FINAL_BEFORE_OPENER, key) ?? word;
    return capitalizeLike(word, spoken) + finalPeriod(src, m.index + m[0].length, key);
  });
  out = out.replace(/\bvs\b/g, 'versus');
  out = rewrite(out, DOTTED_ACRONYM, (m, src) => {
    const letters = (m[1] ?? '').replace(/\./g, '');
    return m[2] === undefined ? letters : letters + finalPeriod(src, m.index + m[0].length, m[1] ?? '');
  });
  return rewrite(out, INITIAL, (m, src) => {
    const letter = m[1] ?? '';
    if (letter === 'A' || letter === 'I') return m[0];
    return letter + finalPeriod(src, m.index + m[0].length, letter);
  });
}

// ---------------------------------------------------------------------------------------------
// Roman numerals, only where they are clearly numbers

const ROMAN_VALUES: Readonly<Record<string, number>> = { I: 1, V: 5, X: 10, L: 50, C: 100 };

function romanToNumber(roman: string): number | undefined {
  let total = 0;
  for (let i = 0; i < roman.length; i++) {
    const value = ROMAN_VALUES[roman[i]!];
    const next = ROMAN_VALUES[roman[i + 1] ?? ''] ?? 0;
    if (value === undefined) return undefined;
    total += value < next ? -value : value;
  }
  return total > 0 && total < 90 && toRoman(total) === roman ? total : undefined;
}

function toRoman(n: number): string {
  const table: readonly (readonly [number, string])[] = [[50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];
  let out = '';
  let rest = n;
  for (const [value, symbol] of table) {
    while (rest >= value) {
      out += symbol;
      rest -= value;
    }
  }
  return out;
}

const REGNAL_NAMES = 'Henry|Edward|George|William|Elizabeth|Charles|James|Richard|John|Mary|Anne|Victoria|Louis|Philip|Frederick|Napoleon|Peter|Catherine|Ivan|Nicholas|Alexander|Benedict|Pius|Leo|Gregory|Innocent|Clement|Paul|Francis|Ferdinand|Alfonso|Gustav|Wilhelm|Ramesses|Ptolemy|Constantine|Justinian|Otto|Rudolf|Sancho|Casimir|Sigismund|Boniface|Urban|Celestine|Hadrian|Sixtus|Stephen|Harold|Malcolm|Robert|David';
const REGNAL = new RegExp(String.raw`\b(${REGNAL_NAMES})\s+([IVXL]+)\b`, 'g');
const NUMBERED_PART = /\b(World War|Chapter|Part|Volume|Book|Act|Scene|Phase|Stage|Episode|Section|Article|Appendix|Super Bowl|Title|Type|Class|Level|Round)\s+([IVXL]+)\b(?!['\u2019]\p{L})/gu;

function normalizeRomanNumerals(text: string): string {
  const regnal = rewrite(text, REGNAL, (m, src) => {
    const roman = m[2] ?? '';
    const value = romanToNumber(roman);
    if (value === undefined) return m[0];
    // "Henry I" is a king only when no verb can follow: "Henry I think", "Henry I'll" are pronouns.
    const after = src.slice(m.index + m[0].length, m.index + m[0].length + 8);
    if (roman === 'I' && (/^['\u2019]/.test(after) || (/^\s+\p{Ll}/u.test(after) && !/^\s+of\b/.test(after)))) return m[0];
    return `${m[1]} the ${capitalizeLike('X', cardinalWordsToOrdinal(integerToWords(String(value))))}`;
  });
  return rewrite(regnal, NUMBERED_PART, (m) => {
    const value = romanToNumber(m[2] ?? '');
    return value === undefined ? m[0] : `${m[1]} ${capitalizeLike('X', integerToWords(String(value)))}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Symbols

/** "#SummerVibes" -> "hashtag Summer Vibes" */
function readHashtag(tag: string): string {
  return `hashtag ${tag.replace(/_/g, ' ').replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').replace(/(\p{L})(\p{N})/gu, '$1 $2')}`;
}

function normalizeSymbols(text: string): string {
  return text
    .replace(/#(\p{L}[\p{L}\p{N}_]*)/gu, (_m, tag: string) => readHashtag(tag))
    .replace(/\b([A-Z])\+\+(?![\w+])/g, '$1 plus plus')
    .replace(/\b([CF])#(?!\w)/g, '$1 sharp')
    .replace(/\band\/or\b/gi, 'and or')
    .replace(/\bw\/o\b/gi, 'without')
    .replace(/\bw\/(?=\s)/gi, 'with')
    .replace(/\b24\/7\b/g, 'twenty-four seven')
    .replace(/\b9\/11\b/g, 'nine eleven')
    .replace(/(\p{Ll}+)\/(?=\p{Ll})/gu, '$1 or ')
    .replace(/\s*&\s*/g, ' and ')
    .replace(/\s*\+\s*/g, ' plus ')
    .replace(/\s*={1,2}\s*/g, ' equals ')
    .replace(/\s*\u2260\s*/g, ' is not equal to ')
    .replace(/\s*\u2264\s*/g, ' is less than or equal to ')
    .replace(/\s*\u2265\s*/g, ' is greater than or equal to ')
    .replace(/\s+<\s+/g, ' is less than ')
    .replace(/\s+>\s+/g, ' is greater than ')
    .replace(/\s*\u00B1\s*/g, ' plus or minus ')
    .replace(/\s*\u00D7\s*/g, ' times ')
    .replace(/\s*\u00F7\s*/g, ' divided by ')
    .replace(/\s*[\u2248~]\s*(?=[\d.])/g, ' about ')
    .replace(/\s*\u2192\s*/g, ' to ')
    .replace(/\u00A7\s*/g, 'section ')
    .replace(/@/g, ' at ')
    .replace(/%/g, ' percent')
    .replace(/\u00B0/g, ' degrees')
    .replace(/\s*[([{]\s*/g, ', ')
    .replace(/\s*[)\]}]\s*/g, ', ')
    .replace(/(?<!\d)\/|\/(?!\d)/g, ' slash ')
    .replace(/[*_|^~\\<>#]+/g, ' ');
}

// ---------------------------------------------------------------------------------------------
// Plain numbers: the last pass, once everything with a unit or context has been read

const YEAR_CONTEXT = new Set([
  'in', 'since', 'from', 'until', 'till', 'by', 'of', 'during', 'circa', 'c', 'ca', 'before', 'after', 'between',
  'year', 'early', 'late', 'mid', 'spring', 'summer', 'autumn', 'fall', 'winter', 'copyright', 'around', 'through',
  'the', 'AD', 'class',
]);
const ERA = /^\s*(?:BC|BCE|AD|CE|B\.C\.|A\.D\.)(?![\p{L}])/u;
const DENOMINATORS = new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 32, 64, 100]);

function isYearInContext(digits: string, src: string, index: number, end: number): boolean {
  if (!/^\d{4}$/.test(digits)) return false;
  const value = Number(digits);
  if (value < 1000 || value > 2999) return false;
  if (ERA.test(src.slice(end, end + 6)) || /^'s\b/.test(src.slice(end, end + 3))) return true;
  const prev = /(\p{L}+)\.?\s+$/u.exec(src.slice(Math.max(0, index - 24), index))?.[1] ?? '';
  return YEAR_CONTEXT.has(prev) || YEAR_CONTEXT.has(prev.toLowerCase());
}

function spokenFraction(numerator: string, denominator: string): string {
  const den = Number(denominator);
  if (DENOMINATORS.has(den) && Number(numerator) < 100 && Number(numerator) > 0) return fractionToWords(numerator, denominator);
  return `${integerToWords(numerator)} over ${integerToWords(denominator)}`;
}

const MIXED_FRACTION = /(?<![\p{N}.,/])(\d+)\s(\d+)\/(\d+)(?![\p{N}/])/gu;
const FRACTION = /(?<![\p{N}.,/])(\d+)\/(\d+)(?![\p{N}/]|\.\d)/gu;
const DOTTED_NUMBER = /(?<![\p{N}.])\d+(?:\.\d+){2,}(?![\p{N}]|\.\d)/gu;
const PLAIN_NUMBER = /(?<![\p{N}])(?:(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?|\.(\d+))(?![\p{N}])/gu;

function normalizeNumbers(text: string): string {
  let out = text
    // Split letters from digits: "MP3" -> "MP 3", "COVID-19" -> "COVID 19".
    .replace(/(\d)k\b/g, '$1 thousand')
    .replace(/(\d)\s?mn\b/g, '$1 million')
    .replace(/(\d)\s?bn\b/g, '$1 billion')
    .replace(/\b(?:c|ca)\.\s?(?=\d{3,4}\b)/g, 'circa ')
    .replace(/(?<![\d.])(\d+)\s?[x\u00D7]\s?(\d+)(?![\d.])/g, (_m, a: string, b: string) => `${integerToWords(a)} by ${integerToWords(b)}`)
    .replace(/(?<![\d.])(\d+)'\s?(\d{1,2})"/g, (_m, ft: string, inches: string) =>
      `${integerToWords(ft)} ${ft === '1' ? 'foot' : 'feet'} ${integerToWords(inches)} ${inches === '1' ? 'inch' : 'inches'}`)
    .replace(/(\d)x\b/g, '$1 times')
    .replace(/(\p{L})-?(?=\d)/gu, '$1 ')
    .replace(/(\d)-?(?=\p{L})/gu, '$1 ');
  out = rewrite(out, MIXED_FRACTION, (m) => {
    const fraction = (m[2] === '1' && m[3] === '2') ? 'a half' : spokenFraction(m[2] ?? '', m[3] ?? '');
    return `${integerToWords(m[1] ?? '')} and ${fraction}`;
  });
  out = rewrite(out, FRACTION, (m) => spokenFraction(m[1] ?? '', m[2] ?? ''));
  out = rewrite(out, DOTTED_NUMBER, (m) => {
    const parts = m[0].split('.');
    const isAddress = parts.length === 4 && parts.every((p) => Number(p) <= 255);
    return parts.map((p) => (p.length > 1 && p.startsWith('0') ? digitsToWords(p) : integerToWords(p))).join(isAddress ? ' dot ' : ' point ');
  });
  // A hyphen before a number that follows no word is a minus sign.
  out = out.replace(/(^|[^\p{L}\p{N}])-(?=\.?\d)/gu, '$1minus ').replace(/minus (?=minus )/g, '');
  return rewrite(out, PLAIN_NUMBER, (m, src) => {
    const [whole, integer = '', fraction, bareFraction] = m;
    if (bareFraction !== undefined) return `point ${digitsToWords(bareFraction)}`;
    if (fraction !== undefined) return numberToWords(`${integer.replace(/,/g, '')}.${fraction}`);
    if (integer.includes(',')) return integerToWords(integer.replace(/,/g, ''));
    if (isYearInContext(integer, src, m.index, m.index + whole.length)) return yearToWords(Number(integer));
    if ((integer.length > 1 && integer.startsWith('0')) || integer.length > 15) return digitsToWords(integer);
    return integerToWords(integer);
  });
}

// ---------------------------------------------------------------------------------------------
// Final tidy-up of spaces and punctuation left by the rewrites

function tidy(text: string): string {
  return text
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ +([,.;:!?])/g, '$1')
    .replace(/,(?:\s*,)+/g, ',')
    .replace(/,\s*([.;:!?])/g, '$1')
    .replace(/([;:!?]),/g, '$1')
    .replace(/(^|\n)[ ,]+/g, '$1')
    .replace(/[ ,]+(?=\n|$)/g, '')
    .replace(/,(?=[\p{L}\p{N}"])/gu, ', ')
    .replace(/ ?\n ?/g, '\n')
    .trim();
}

/** English normalization of already cleaned text. */
export function normalizeEnglish(text: string): string {
  let out = normalizeCharacters(text);
  out = normalizeAddresses(out);
  out = normalizePhones(out);
  out = normalizeDates(out);
  out = normalizeTimes(out);
  out = normalizeRanges(out);
  out = normalizeMoney(out);
  out = normalizeUnits(out);
  out = rewrite(out, ORDINAL, (m) => ordinalToWords(m[1] ?? ''));
  out = normalizeAbbreviations(out);
  out = normalizeRomanNumerals(out);
  out = normalizeSymbols(out);
  out = normalizeNumbers(out);
  return tidy(out);
}

/**
 * Normalizes text for speech (no splitting). English ("en*") gets the full rewrite of numbers,
 * currency, dates, times, units, abbreviations, URLs and symbols; other languages only get control
 * character and white-space clean-up.
 * @param language BCP-47 tag. @default "en"
 */
export function normalizeText(text: string, language = 'en'): string {
  const clean = cleanText(text);
  return isEnglish(language) ? normalizeEnglish(clean) : clean;
}
