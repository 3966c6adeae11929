/**
 * The SSML subset the platform reads: a text that starts with `<speak>` (after white space) is
 * parsed with sax (strict XML) and validated here, so the facade refuses bad markup with a 422
 * before any node work and the node turns the same parse into speech. Any other text is plain text,
 * never markup ("a < b > c" is read as written).
 *
 * Elements: `<speak>`, `<p>`, `<s>`, `<break time|strength>`, `<say-as interpret-as format>`,
 * `<phoneme alphabet="ipa" ph>`, `<sub alias>`, `<prosody rate pitch>`. Anything else (an unknown
 * element or attribute, a DOCTYPE, a malformed document) throws SSML_INVALID naming the element and
 * its line and column.
 */
import sax from 'sax';
import { TtsError } from '../errors/tts-error.js';

/** Longest pause one `<break>` may ask for, in seconds. */
export const SSML_MAX_BREAK_SEC = 10;
/** Most silence the breaks of one document may add up to, in seconds (a long text of breaks is not a way to make hours of audio). */
export const SSML_MAX_TOTAL_BREAK_SEC = 60;

/** What `<say-as interpret-as>` may ask for. */
export type SayAsKind = 'characters' | 'cardinal' | 'ordinal' | 'date' | 'telephone';

/** Field order of a `<say-as interpret-as="date">` (its `format`, e.g. "mdy"; without one, "ymd" when the date starts with a 4-digit year, else "mdy"). */
export type DateFormat = 'mdy' | 'dmy' | 'ymd' | 'ydm' | 'md' | 'dm' | 'ym' | 'my' | 'y';

/** Prosody in force for a piece of text: speed and pitch factors (1 = unchanged). */
export interface Prosody {
  /** Speaking-rate factor from `<prosody rate>` (nested ones multiply). */
  readonly rate: number;
  /** Pitch factor from `<prosody pitch>` (nested ones multiply). */
  readonly pitch: number;
}

/** One piece of an SSML document, in reading order. */
export type SsmlSegment =
  /** Text to read; `sayAs` asks the text front-end to expand it (digits, letters, a date...). */
  | { readonly kind: 'text'; readonly text: string; readonly prosody: Prosody; readonly sayAs?: { readonly interpretAs: SayAsKind; readonly format?: DateFormat } }
  /** A `<phoneme>`: its IPA for engines that take phonemes, its text for the others. */
  | { readonly kind: 'phoneme'; readonly ipa: string; readonly text: string; readonly prosody: Prosody }
  /** A pause of `seconds` (a `<break>`). */
  | { readonly kind: 'break'; readonly seconds: number }
  /** The edge of a `<p>` or `<s>`: text on either side belongs to different sentences. */
  | { readonly kind: 'boundary' };

const SPEAK_START = /^\s*<speak[\s>/]/;

/** True when `text` is SSML: it starts with a `<speak>` element after optional white space. */
export function isSsml(text: string): boolean {
  return SPEAK_START.test(text);
}

/** Pause of each `<break strength>`, in seconds (`<break/>` alone is "medium"). */
const BREAK_STRENGTHS: Readonly<Record<string, number>> = { none: 0, 'x-weak': 0.1, weak: 0.25, medium: 0.5, strong: 0.75, 'x-strong': 1.2 };
const RATE_NAMES: Readonly<Record<string, number>> = { 'x-slow': 0.5, slow: 0.75, medium: 1, default: 1, fast: 1.25, 'x-fast': 1.6 };
const PITCH_NAMES: Readonly<Record<string, number>> = { 'x-low': 0.8, low: 0.9, medium: 1, default: 1, high: 1.1, 'x-high': 1.2 };
const SAY_AS: readonly SayAsKind[] = ['characters', 'cardinal', 'ordinal', 'date', 'telephone'];
const DATE_FORMATS: readonly DateFormat[] = ['mdy', 'dmy', 'ymd', 'ydm', 'md', 'dm', 'ym', 'my', 'y'];
/** Rate factors a `<prosody rate>` may give (a quarter to four times, as the speed field). */
const RATE_RANGE = { min: 0.25, max: 4 } as const;
/** Pitch factors a `<prosody pitch>` may give (an octave down or up). */
const PITCH_RANGE = { min: 0.5, max: 2 } as const;

/** Attributes each element accepts (`xmlns:*` is accepted on `<speak>` too). */
const ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  speak: ['version', 'xmlns', 'xml:lang'],
  p: ['xml:lang'],
  s: ['xml:lang'],
  break: ['time', 'strength'],
  'say-as': ['interpret-as', 'format', 'detail'],
  phoneme: ['alphabet', 'ph'],
  sub: ['alias'],
  prosody: ['rate', 'pitch'],
};
/** Elements whose content is text only (they replace or reinterpret it as a whole). */
const TEXT_ONLY = new Set(['say-as', 'phoneme', 'sub']);

/** Line and column (both from 1) of a UTF-16 offset in `text`. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** An element open while parsing. */
interface OpenElement {
  readonly name: string;
  /** Offset of its `<` in the document. */
  readonly offset: number;
  readonly prosody: Prosody;
  /** Text gathered inside a text-only element. */
  text: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** Reads a `<break time>`: "500ms", "2s", "1.5s"; throws on anything else. */
function breakSeconds(value: string, fail: (why: string) => never): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s)\s*$/.exec(value);
  if (!m) fail(`time "${value}" is not a duration such as "500ms" or "2s"`);
  const seconds = Number(m[1]) / (m[2] === 'ms' ? 1000 : 1);
  if (seconds > SSML_MAX_BREAK_SEC) fail(`time "${value}" is longer than ${SSML_MAX_BREAK_SEC} s`);
  return seconds;
}

/** Reads a `<prosody rate>`: a name (x-slow ... x-fast), a percentage of normal ("80%") or a factor ("1.2"). */
function rateFactor(value: string, fail: (why: string) => never): number {
  const v = value.trim();
  const named = RATE_NAMES[v];
  let factor = named;
  if (factor === undefined) {
    const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(v);
    if (!m) fail(`rate "${value}" is not x-slow, slow, medium, fast, x-fast, a percentage ("80%") or a factor ("1.2")`);
    factor = Number(m[1]) / (m[2] === '%' ? 100 : 1);
  }
  if (factor < RATE_RANGE.min || factor > RATE_RANGE.max) fail(`rate "${value}" is outside ${RATE_RANGE.min * 100}% to ${RATE_RANGE.max * 100}%`);
  return factor;
}

/** Reads a `<prosody pitch>`: a name (x-low ... x-high), semitones ("+2st", "-3st") or a relative change ("+10%"). */
function pitchFactor(value: string, fail: (why: string) => never): number {
  const v = value.trim();
  let factor = PITCH_NAMES[v];
  if (factor === undefined) {
    const m = /^([+-]?\d+(?:\.\d+)?)(st|%)$/.exec(v);
    if (!m) fail(`pitch "${value}" is not x-low, low, medium, high, x-high, semitones ("+2st") or a change in percent ("-10%")`);
    factor = m[2] === 'st' ? 2 ** (Number(m[1]) / 12) : 1 + Number(m[1]) / 100;
  }
  if (!(factor >= PITCH_RANGE.min && factor <= PITCH_RANGE.max)) fail(`pitch "${value}" is outside an octave down or up`);
  return factor;
}

/** Checks that the content of a `<say-as>` is something it can read that way. */
function checkSayAs(kind: SayAsKind, text: string, fail: (why: string) => never): void {
  const t = text.trim();
  if (t === '') fail('has no text to read');
  const ok =
    kind === 'cardinal' ? /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/.test(t)
    : kind === 'ordinal' ? /^\d+(?:st|nd|rd|th)?\.?$/i.test(t)
    : kind === 'telephone' ? /^\+?[\d\s().-]*\d[\d\s().-]*$/.test(t)
    : kind === 'date' ? /^\d{1,4}(?:[-/.]\d{1,4}){0,2}$/.test(t)
    : /\S/.test(t);
  if (!ok) fail(`interpret-as="${kind}" cannot read "${t.slice(0, 40)}"`);
}

/** The format of a date without one: ISO order when it starts with a 4-digit year, else US order ("12/25/2024" is mdy). */
function defaultDateFormat(text: string): DateFormat {
  const parts = text.trim().split(/[-/.]/);
  const yearFirst = (parts[0] ?? '').length === 4;
  if (parts.length === 1) return 'y';
  if (parts.length === 2) return yearFirst ? 'ym' : 'md';
  return yearFirst ? 'ymd' : 'mdy';
}

/** The year, month and day of a `<say-as interpret-as="date">` text in `format` order; throws when they do not fit it. */
export function dateFields(text: string, format: DateFormat): { year?: string; month?: number; day?: number } {
  const parts = text.trim().split(/[-/.]/);
  if (parts.length !== format.length) throw new RangeError(`"${text.trim()}" does not have the ${format.length} fields of format "${format}"`);
  const out: { year?: string; month?: number; day?: number } = {};
  [...format].forEach((field, i) => {
    const value = parts[i]!;
    if (field === 'y') out.year = value;
    else if (field === 'm') out.month = Number(value);
    else out.day = Number(value);
  });
  if (out.month !== undefined && !(out.month >= 1 && out.month <= 12)) throw new RangeError(`month ${out.month} is not 1 to 12`);
  if (out.day !== undefined && !(out.day >= 1 && out.day <= 31)) throw new RangeError(`day ${out.day} is not 1 to 31`);
  return out;
}

/**
 * Parses and validates an SSML document (a text for which `isSsml` is true) into its segments.
 * Throws TtsError SSML_INVALID (422) naming the element and its position for malformed XML, an
 * unknown element or attribute, a bad attribute value, a break over 10 s or breaks adding up to
 * over 60 s. `field` names the
 * request field in the error (`text` or `input`).
 */
export function parseSsml(text: string, field = 'text'): SsmlSegment[] {
  // strictEntities: only XML's five named entities (sax knows HTML's too); @types/sax lacks the option.
  const options = { position: true, trim: false, normalize: false, strictEntities: true };
  const parser = sax.parser(true, options);
  const segments: SsmlSegment[] = [];
  const stack: OpenElement[] = [];
  let sawRoot = false;
  let breakSec = 0;
  let closedRoot = false;
  const refuse = (message: string, offset: number): never => {
    const { line, column } = positionOf(text, offset);
    throw new TtsError('SSML_INVALID', `SSML: ${message} (line ${line}, column ${column}).`, { loc: ['body', field] });
  };
  const prosodyNow = (): Prosody => stack[stack.length - 1]?.prosody ?? { rate: 1, pitch: 1 };
  const pushText = (value: string): void => {
    if (value === '') return;
    const top = stack[stack.length - 1];
    if (top && TEXT_ONLY.has(top.name)) {
      top.text += value;
      return;
    }
    const prosody = prosodyNow();
    const last = segments[segments.length - 1];
    if (last?.kind === 'text' && last.sayAs === undefined && last.prosody === prosody) {
      segments[segments.length - 1] = { ...last, text: last.text + value };
    } else segments.push({ kind: 'text', text: value, prosody });
  };

  parser.onerror = (err) => {
    const why = err.message.split('\n')[0] ?? 'malformed XML';
    // A fault in a tag is placed at the tag's "<", any other where the parser stopped.
    const inTag = /tag|attribute/i.test(why) && !/unclosed root/i.test(why);
    const offset = inTag ? parser.startTagPosition - 1 : parser.position - 1;
    refuse(`malformed XML: ${why}${stack.length > 0 ? ` inside <${stack[stack.length - 1]!.name}>` : ''}`, Math.max(0, offset));
  };
  parser.ondoctype = () => refuse('a DOCTYPE is not accepted', parser.position - 1);
  parser.onprocessinginstruction = (pi) => refuse(`the processing instruction <?${pi.name}?> is not accepted`, parser.position - 1);
  parser.ontext = (value) => {
    if (stack.length === 0) {
      if (value.trim() !== '') refuse('text outside <speak>', parser.position - value.length);
      return;
    }
    pushText(value);
  };
  parser.oncdata = (value) => pushText(value);
  parser.onopentag = (tag) => {
    const name = tag.name;
    const offset = Math.max(0, parser.startTagPosition - 1);
    const fail = (why: string): never => refuse(`<${name}> ${why}`, offset);
    const attributes = tag.attributes as Record<string, string>;
    if (stack.length === 0) {
      if (name !== 'speak' || sawRoot) fail(closedRoot ? 'after </speak>: a document has one <speak> element' : 'is not <speak>: the document must start with <speak>');
      sawRoot = true;
    } else if (name === 'speak') fail('inside <speak>: it may only be the root element');
    const allowed = ATTRIBUTES[name];
    if (allowed === undefined) return fail('is not supported (supported: speak, p, s, break, say-as, phoneme, sub, prosody)');
    const parent = stack[stack.length - 1];
    if (parent && TEXT_ONLY.has(parent.name)) fail(`inside <${parent.name}>: <${parent.name}> may only contain text`);
    for (const attribute of Object.keys(attributes)) {
      if (!allowed.includes(attribute) && !(name === 'speak' && attribute.startsWith('xmlns:'))) {
        fail(`has an unsupported attribute "${attribute}"${allowed.length > 0 ? ` (supported: ${allowed.join(', ')})` : ''}`);
      }
    }
    let prosody = prosodyNow();
    switch (name) {
      case 'break': {
        const seconds = attributes.time !== undefined ? breakSeconds(attributes.time, fail) : BREAK_STRENGTHS[attributes.strength ?? 'medium'];
        if (seconds === undefined) return fail(`strength "${attributes.strength}" is not none, x-weak, weak, medium, strong or x-strong`);
        breakSec += seconds;
        if (breakSec > SSML_MAX_TOTAL_BREAK_SEC) fail(`brings the breaks to ${Math.round(breakSec * 1000) / 1000} s, over the ${SSML_MAX_TOTAL_BREAK_SEC} s a document may hold`);
        segments.push({ kind: 'break', seconds });
        break;
      }
      case 'say-as': {
        const kind = attributes['interpret-as'];
        if (kind === undefined || !SAY_AS.includes(kind as SayAsKind)) fail(`interpret-as "${kind ?? ''}" is not ${SAY_AS.join(', ')}`);
        if (attributes.format !== undefined && (kind !== 'date' || !DATE_FORMATS.includes(attributes.format as DateFormat))) {
          fail(kind === 'date' ? `format "${attributes.format}" is not one of ${DATE_FORMATS.join(', ')}` : 'format is only read with interpret-as="date"');
        }
        break;
      }
      case 'phoneme':
        if ((attributes.alphabet ?? 'ipa') !== 'ipa') fail(`alphabet "${attributes.alphabet}" is not supported (only "ipa")`);
        if ((attributes.ph ?? '').trim() === '') fail('needs a non-empty ph attribute');
        break;
      case 'sub':
        if (attributes.alias === undefined) fail('needs an alias attribute');
        break;
      case 'prosody': {
        const rate = attributes.rate !== undefined ? rateFactor(attributes.rate, fail) : 1;
        const pitch = attributes.pitch !== undefined ? pitchFactor(attributes.pitch, fail) : 1;
        prosody = { rate: prosody.rate * rate, pitch: prosody.pitch * pitch };
        if (prosody.rate < RATE_RANGE.min || prosody.rate > RATE_RANGE.max) fail(`nested rates reach ${prosody.rate}, outside ${RATE_RANGE.min} to ${RATE_RANGE.max}`);
        break;
      }
      case 'p':
      case 's':
        segments.push({ kind: 'boundary' });
        break;
      default:
        break;
    }
    stack.push({ name, offset, prosody, text: '', attributes });
  };
  parser.onclosetag = () => {
    const element = stack.pop();
    if (!element) return;
    const { name, attributes, prosody } = element;
    const fail = (why: string): never => refuse(`<${name}> ${why}`, element.offset);
    if (name === 'say-as') {
      const interpretAs = attributes['interpret-as'] as SayAsKind;
      checkSayAs(interpretAs, element.text, fail);
      const format = interpretAs === 'date' ? ((attributes.format as DateFormat | undefined) ?? defaultDateFormat(element.text)) : undefined;
      if (format !== undefined) {
        try {
          dateFields(element.text, format);
        } catch (err) {
          fail(`interpret-as="date": ${(err as Error).message}`);
        }
      }
      segments.push({ kind: 'text', text: element.text.trim(), prosody, sayAs: format ? { interpretAs, format } : { interpretAs } });
    } else if (name === 'sub') {
      pushText(` ${attributes.alias ?? ''} `);
    } else if (name === 'phoneme') {
      segments.push({ kind: 'phoneme', ipa: (attributes.ph ?? '').trim(), text: element.text.trim(), prosody });
    } else if (name === 'p' || name === 's') {
      segments.push({ kind: 'boundary' });
    } else if (name === 'speak') closedRoot = true;
  };
  parser.write(text).close();
  if (!sawRoot) refuse('no <speak> element', 0);
  return segments;
}
