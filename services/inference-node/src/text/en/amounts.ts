/**
 * Quantities: number ranges ("10-20"), money ("$12.50", "€3 million"), percentages and
 * measurements with units ("5 km", "20°C").
 */
import { integerToWords, numberToWords, yearToWords } from '../numbers.js';
import { NUM, escapeRegExp, followsWordChar, rewrite } from './context.js';

const RANGE = new RegExp(String.raw`(?<!\d)(${NUM})-([$\u20AC\u00A3\u00A5]?)(${NUM})(?![\p{N}]|[\-/.,]\d)`, 'gu');
const isYear = (digits: string): boolean => /^[12]\d{3}$/.test(digits);

/** "10-20" -> "10 to 20"; "1990-1995" -> both read as years. Chains like "1-2-3" are left alone. */
export function normalizeRanges(text: string): string {
  if (!/\d-/.test(text)) return text;
  return rewrite(text, RANGE, (m, src) => {
    if (followsWordChar(src, m.index) || /[.,\-/]/.test(src[m.index - 1] ?? ' ')) return null;
    const [, from = '', currency = '', to = ''] = m;
    if (currency === '' && isYear(from) && isYear(to) && Number(from) < Number(to)) {
      return `${yearToWords(Number(from))} to ${yearToWords(Number(to))}`;
    }
    return `${from} to ${currency}${to}`;
  });
}

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
  '\u00A2': { one: 'cent', many: 'cents' },
};

const SCALE_WORDS: Readonly<Record<string, string>> = {
  k: 'thousand', K: 'thousand', m: 'million', M: 'million', mn: 'million',
  b: 'billion', B: 'billion', bn: 'billion', t: 'trillion', T: 'trillion', tn: 'trillion',
};

// Scale words may follow after a space ("$3 million"); letter suffixes only attached ("$5M", "$2bn").
const CURRENCY_BEFORE = new RegExp(
  String.raw`(-?)(US\$|[$\u20AC\u00A3\u00A5\u20B9\u20A9])\s?(${NUM})(?:\s?(thousand|million|billion|trillion)|(mn|bn|tn|[kKmMbBtT]))?(?![\p{L}\p{N}\-])`,
  'gu',
);
const CURRENCY_AFTER = new RegExp(
  String.raw`(-?)(?<!\d)(${NUM})(?:\s?(thousand|million|billion|trillion))?\s?([\u20AC\u00A3\u00A5\u20B9\u20A9\u00A2])`, 'gu',
);
const PERCENT = new RegExp(String.raw`(-?)(?<!\d)(${NUM})\s?%`, 'gu');

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

/** Reads money ("$12.50" -> "twelve dollars and fifty cents", "€3 million" -> "three million euros") and percentages. */
export function normalizeMoney(text: string): string {
  let out = text;
  if (/[$\u20AC\u00A3\u00A5\u20B9\u20A9\u00A2]/.test(out)) {
    out = rewrite(out, CURRENCY_BEFORE, (m, src) => {
      const [, minus, symbol = '', amount = '', scaleWord, suffix] = m;
      const currency = CURRENCIES[symbol];
      if (currency === undefined || followsWordChar(src, m.index)) return null;
      const scale = scaleWord ?? (suffix === undefined ? undefined : SCALE_WORDS[suffix]);
      return (minus === '' ? '' : 'minus ') + spokenAmount(amount, currency, scale);
    });
    out = rewrite(out, CURRENCY_AFTER, (m, src) => {
      const [, minus, amount = '', scale, symbol = ''] = m;
      const currency = CURRENCIES[symbol];
      if (currency === undefined || followsWordChar(src, m.index)) return null;
      return (minus === '' ? '' : 'minus ') + spokenAmount(amount, currency, scale);
    });
  }
  if (!out.includes('%')) return out;
  return rewrite(out, PERCENT, (m, src) => {
    if (followsWordChar(src, m.index)) return null;
    return `${numberToWords((m[1] ?? '') + (m[2] ?? ''))} percent`;
  });
}

const UNITS: Readonly<Record<string, readonly [string, string]>> = {
  mm: ['millimeter', 'millimeters'], cm: ['centimeter', 'centimeters'], m: ['meter', 'meters'],
  km: ['kilometer', 'kilometers'], '\u00B5m': ['micrometer', 'micrometers'], '\u03BCm': ['micrometer', 'micrometers'],
  ft: ['foot', 'feet'], yd: ['yard', 'yards'], mi: ['mile', 'miles'],
  'm\u00B2': ['square meter', 'square meters'], 'km\u00B2': ['square kilometer', 'square kilometers'],
  'cm\u00B2': ['square centimeter', 'square centimeters'], 'ft\u00B2': ['square foot', 'square feet'],
  'm\u00B3': ['cubic meter', 'cubic meters'], 'sq ft': ['square foot', 'square feet'],
  mph: ['mile per hour', 'miles per hour'], kph: ['kilometer per hour', 'kilometers per hour'],
  'km/h': ['kilometer per hour', 'kilometers per hour'], 'm/s': ['meter per second', 'meters per second'],
  mg: ['milligram', 'milligrams'], g: ['gram', 'grams'], kg: ['kilogram', 'kilograms'],
  lb: ['pound', 'pounds'], lbs: ['pound', 'pounds'], oz: ['ounce', 'ounces'],
  ml: ['milliliter', 'milliliters'], mL: ['milliliter', 'milliliters'], l: ['liter', 'liters'], L: ['liter', 'liters'],
  gal: ['gallon', 'gallons'], ms: ['millisecond', 'milliseconds'], sec: ['second', 'seconds'], secs: ['second', 'seconds'],
  min: ['minute', 'minutes'], mins: ['minute', 'minutes'], h: ['hour', 'hours'], hr: ['hour', 'hours'], hrs: ['hour', 'hours'],
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

const UNIT_PATTERN = Object.keys(UNITS).sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
const MEASURE = new RegExp(String.raw`(-?)(?<!\d)(${NUM})(\s?|-)(${UNIT_PATTERN})(?![\p{L}\p{N}\u00B2\u00B3])`, 'gu');

/**
 * Reads measurements: "5 km" -> "five kilometers", "1 kg" -> "one kilogram", "-5°F" -> "minus five
 * degrees Fahrenheit", and hyphenated ones as adjectives: "a 5-km run" -> "a five-kilometer run".
 */
export function normalizeUnits(text: string): string {
  if (!/\d/.test(text)) return text;
  return rewrite(text, MEASURE, (m, src) => {
    const [, minus = '', number = '', separator, symbol = ''] = m;
    const unit = UNITS[symbol];
    if (unit === undefined || followsWordChar(src, m.index)) return null;
    const amount = minus + number;
    if (separator === '-') return `${numberToWords(amount)}-${unit[0].replace(/ /g, '-')}`;
    return `${numberToWords(amount)} ${/^-?1$/.test(amount) ? unit[0] : unit[1]}`;
  });
}
