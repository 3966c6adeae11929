/**
 * The SSML front-end: turns the segments of a parsed `<speak>` document (`parseSsml` of
 * `@tts/common`, which also validates it) into the pieces the pipeline renders one at a time:
 * speech (text prepared like plain text, with its own rate and pitch, or IPA for engines that take
 * phonemes) and silences. `<say-as>` is expanded into words here; text between breaks, `<p>`/`<s>`
 * edges, phonemes and prosody changes is normalized and split into sentences as plain text is.
 */
import { dateFields, type DateFormat, type SayAsKind, type SsmlSegment } from '@tts/common';
import type { TextPart } from '../engines/engine.js';
import { MONTHS } from './en/dates.js';
import { prepareSpeech, type PrepareTextOptions } from './index.js';
import type { RespelledSegment } from './lexicon.js';
import { digitsToWords, numberToWords, ordinalToWords, yearToWords } from './numbers.js';

/** One piece the pipeline renders: speech or a silence. */
export type SpeechPiece =
  | {
      readonly kind: 'speech';
      /** The text to speak (for an engine given `phonemes`, what they spell). */
      readonly text: string;
      /** Speed factor on top of the request's speed (`<prosody rate>`). */
      readonly rate: number;
      /** Pitch factor (`<prosody pitch>`), applied to the rendered audio. */
      readonly pitch: number;
      /** IPA to render instead of `text` (`<phoneme>`, only for engines that take phonemes). */
      readonly phonemes?: string;
      /** `text` in parts, some said by their IPA (pronunciation lexicon entries; engines that take phonemes). */
      readonly parts?: readonly TextPart[];
      /** What was read and written where lexicon respellings replaced words (word timings name the written words). */
      readonly respelled?: readonly RespelledSegment[];
    }
  | { readonly kind: 'silence'; readonly seconds: number };

/** Options of ssmlPieces: prepareText's (`phonemes`: the engine renders IPA, otherwise a `<phoneme>` reads its text). */
export type SsmlPieceOptions = PrepareTextOptions;

const LETTER_NAMES: Readonly<Record<string, string>> = {
  a: 'ay', b: 'bee', c: 'see', d: 'dee', e: 'ee', f: 'eff', g: 'gee', h: 'aitch', i: 'eye', j: 'jay', k: 'kay', l: 'el', m: 'em',
  n: 'en', o: 'oh', p: 'pee', q: 'cue', r: 'ar', s: 'ess', t: 'tee', u: 'you', v: 'vee', w: 'double you', x: 'ex', y: 'why', z: 'zee',
};

/** Reads `text` one character at a time: letter names, digit words (other characters are skipped). */
function spellCharacters(text: string): string {
  const words: string[] = [];
  for (const ch of text.toLowerCase()) {
    const letter = LETTER_NAMES[ch];
    if (letter !== undefined) words.push(letter);
    else if (/\d/.test(ch)) words.push(digitsToWords(ch));
  }
  return words.join(' ');
}

/** Reads a telephone number digit by digit, a pause between its groups, "plus" for a leading "+". */
function readTelephone(text: string): string {
  const groups = text.split(/[^\d]+/).filter((g) => g !== '');
  return `${text.trim().startsWith('+') ? 'plus ' : ''}${groups.map(digitsToWords).join(', ')}`;
}

/** Reads a date of `format` order: "January fifteenth, twenty twenty-four", "March twenty twenty", "the fifth". */
function readDate(text: string, format: DateFormat): string {
  const { year, month, day } = dateFields(text, format);
  const yearWords = year === undefined ? undefined : yearToWords(Number(year));
  const monthName = month === undefined ? undefined : MONTHS[month - 1];
  const dayWords = day === undefined ? undefined : ordinalToWords(day);
  if (monthName === undefined) return [dayWords === undefined ? undefined : `the ${dayWords}`, yearWords].filter((w) => w !== undefined).join(', ');
  const head = dayWords === undefined ? monthName : `${monthName} ${dayWords}`;
  return yearWords === undefined ? head : `${head}${dayWords === undefined ? '' : ','} ${yearWords}`;
}

/** The words of a `<say-as>` (its text was checked by the parser). */
export function sayAsWords(kind: SayAsKind, text: string, format?: DateFormat): string {
  const t = text.trim();
  switch (kind) {
    case 'characters':
      return spellCharacters(t);
    case 'cardinal':
      return numberToWords(t.replace(/^\+/, ''));
    case 'ordinal':
      return ordinalToWords(t.replace(/(?:st|nd|rd|th)?\.?$/i, ''));
    case 'telephone':
      return readTelephone(t);
    case 'date':
      return readDate(t, format ?? 'ymd');
  }
}

/**
 * The pieces of a parsed SSML document, in order. Adjacent text of the same prosody is read as one
 * text (so a `<say-as>` or `<sub>` inside a sentence stays inside it); breaks become silences
 * (consecutive ones add up); only the very first text gets the quick-first-chunk cut.
 */
export function ssmlPieces(segments: readonly SsmlSegment[], options: SsmlPieceOptions = {}): SpeechPiece[] {
  const pieces: SpeechPiece[] = [];
  let run = '';
  let runProsody = { rate: 1, pitch: 1 };
  const flush = (): void => {
    if (run.trim() !== '') {
      const first = !pieces.some((p) => p.kind === 'speech');
      const prepareOptions: PrepareTextOptions = first ? options : { ...options, firstChunkMaxChars: Number.POSITIVE_INFINITY };
      for (const { text, parts, respelled } of prepareSpeech(run, prepareOptions)) {
        pieces.push({ kind: 'speech', text, rate: runProsody.rate, pitch: runProsody.pitch, ...(parts === undefined ? {} : { parts }), ...(respelled === undefined ? {} : { respelled }) });
      }
    }
    run = '';
  };
  const append = (text: string, prosody: { rate: number; pitch: number }): void => {
    if (prosody.rate !== runProsody.rate || prosody.pitch !== runProsody.pitch) {
      flush();
      runProsody = prosody;
    }
    run += text;
  };
  for (const segment of segments) {
    switch (segment.kind) {
      case 'text':
        append(segment.sayAs === undefined ? segment.text : ` ${sayAsWords(segment.sayAs.interpretAs, segment.text, segment.sayAs.format)} `, segment.prosody);
        break;
      case 'phoneme':
        if (options.phonemes === true) {
          flush();
          pieces.push({ kind: 'speech', text: segment.text, rate: segment.prosody.rate, pitch: segment.prosody.pitch, phonemes: segment.ipa });
        } else append(` ${segment.text} `, segment.prosody);
        break;
      case 'break': {
        flush();
        if (segment.seconds <= 0) break;
        const last = pieces[pieces.length - 1];
        if (last?.kind === 'silence') pieces[pieces.length - 1] = { kind: 'silence', seconds: last.seconds + segment.seconds };
        else pieces.push({ kind: 'silence', seconds: segment.seconds });
        break;
      }
      case 'boundary':
        flush();
        break;
    }
  }
  flush();
  return pieces;
}
