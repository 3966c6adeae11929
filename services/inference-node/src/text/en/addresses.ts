/**
 * URLs and e-mail addresses read symbol by symbol, phone numbers read digit by digit.
 */
import { digitsToWords } from '../numbers.js';
import { rewrite } from './context.js';

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

const EMAIL = /[A-Za-z0-9][\w.%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])/g;
const TLDS = 'com|org|net|edu|gov|mil|int|io|dev|ai|app|co|uk|us|ca|au|de|fr|es|it|nl|eu|info|biz|me|tv|ly|xyz|gg|ru|jp|cn|in|br';
const URL = new RegExp(
  String.raw`(?:(?:https?|ftp):\/\/[^\s<>"]+|www\.[^\s<>"]+|(?:[a-z0-9-]+\.)+(?:${TLDS})(?:\/[^\s<>"]*)?(?![\w-]))`,
  'gi',
);
// Cheap test for "could contain a URL" before running the full pattern.
const URL_HINT = new RegExp(String.raw`:\/\/|www\.|\.(?:${TLDS})\b`, 'i');

function readUrl(url: string): string {
  let body = url.replace(/^(?:https?|ftp):\/\//i, '');
  let prefix = '';
  if (/^www\./i.test(body)) {
    prefix = 'W W W dot ';
    body = body.slice(4);
  }
  return prefix + spellAddress(body.replace(/\/+$/, ''));
}

/** Spells e-mail addresses and URLs ("https://example.com/docs" -> "example dot com slash docs"). */
export function normalizeAddresses(text: string): string {
  let out = text;
  if (out.includes('@')) {
    out = rewrite(out, EMAIL, (m, src) => (/[\w.+-]/.test(src[m.index - 1] ?? ' ') ? null : spellAddress(m[0])));
  }
  if (!URL_HINT.test(out)) return out;
  return rewrite(out, URL, (m, src) => {
    if (/[\w@.-]/.test(src[m.index - 1] ?? ' ')) return null;
    // Sentence punctuation after a URL is not part of it.
    const [, url = m[0], trailing = ''] = /^(.*?)([.,;:!?'")\]]*)$/s.exec(m[0]) ?? [];
    return readUrl(url) + trailing;
  });
}

const PHONE_NANP = /(?:(\+?1)[\s.-]?)?(\(\d{3}\)|\d{3})[\s.-]?(\d{3})[\s.-](\d{4})(?![\w-]|\.\d)/g;
const PHONE_LOCAL = /(\d{3})-(\d{4})(?![\w-]|[.,]\d)/g;
const PHONE_INTL = /\+(\d{1,3})((?:[\s.-]?\(?\d{1,4}\)?){2,5})(?![\w-]|\.\d)/g;

function readPhoneGroups(groups: readonly string[]): string {
  return groups.map((g) => digitsToWords(g)).filter((g) => g !== '').join(', ');
}

/** Reads phone numbers digit by digit, pausing between groups: "(555) 123-4567" -> "five five five, one two three, ...". */
export function normalizePhones(text: string): string {
  if (!/\d{3}/.test(text)) return text;
  const nanp = rewrite(text, PHONE_NANP, (m, src) => {
    if (/[\w+\-.]/.test(src[m.index - 1] ?? ' ')) return null;
    const [, country, area = '', exchange = '', line = ''] = m;
    const lead = country === undefined ? '' : `${country.startsWith('+') ? 'plus ' : ''}${digitsToWords(country)}, `;
    return lead + readPhoneGroups([area, exchange, line]);
  });
  const local = rewrite(nanp, PHONE_LOCAL, (m, src) => {
    // "555-1234" is a local number; "500-1000" and "250-1500" are ranges.
    const [, exchange = '', line = ''] = m;
    const isRange = Number(line) % 100 === 0 || (Number(exchange) % 10 === 0 && Number(line) % 10 === 0);
    if (isRange || /[\w+\-.,$]/.test(src[m.index - 1] ?? ' ')) return null;
    return readPhoneGroups([exchange, line]);
  });
  if (!local.includes('+')) return local;
  return rewrite(local, PHONE_INTL, (m, src) => {
    if (/[\w+]/.test(src[m.index - 1] ?? ' ')) return null;
    const groups = (m[2] ?? '').split(/\D+/).filter((g) => g !== '');
    if (groups.join('').length + (m[1] ?? '').length < 7) return null;
    return `plus ${digitsToWords(m[1] ?? '')}, ${readPhoneGroups(groups)}`;
  });
}
