/**
 * The text front-end shared by all engines: cleans text, normalizes it for speech (English) and
 * splits it into speakable chunks that are handed to an engine one at a time.
 */
import { checkMaxChunkChars, chunkSentence, splitAtFirstClause } from './chunks.js';
import { isEnglish, isSpeakable } from './cleanup.js';
import { expandLexiconMarks, markLexiconWords, type CompiledLexicon, type SpeechText } from './lexicon.js';
import { normalizeEnglish } from './normalize.js';
import { splitSentences } from './sentences.js';

export { normalizeText } from './normalize.js';
export { splitSentences } from './sentences.js';
export { numberToWords } from './numbers.js';
export { compileLexicon, findLexiconMatches, type CompiledLexicon, type SpeechText } from './lexicon.js';
export { ipaToRespelling } from './respelling.js';

/** Options for prepareText. */
export interface PrepareTextOptions {
  /** BCP-47 language of the text; normalization rules are English ("en*"); other languages only get whitespace/control-char cleanup. @default "en" */
  language?: string;
  /** Expand numbers, currency, dates, abbreviations, URLs... @default true */
  normalize?: boolean;
  /** Longest chunk handed to an engine; longer sentences are split at clause boundaries (, ; : —) then at spaces. @default 400 */
  maxChunkChars?: number;
  /**
   * A first chunk longer than this is cut at its first clause boundary so the first audio comes
   * quickly (streaming wants it small; whole-file synthesis keeps sentences whole). @default 160
   */
  firstChunkMaxChars?: number;
  /** ...but never into a head shorter than this, which would sound clipped. @default 40 */
  firstChunkMinChars?: number;
  /** With no clause boundary within those bounds, cut the first chunk at its last word that fits. @default false */
  firstChunkCutAtWord?: boolean;
  /** Pronunciation lexicon applied to the text as written, before normalization (see text/lexicon.ts). */
  lexicon?: CompiledLexicon;
  /**
   * The engine takes IPA (feature "ipa-input"): a lexicon entry's IPA is said inline (`parts`),
   * and an SSML `<phoneme>` by its IPA; otherwise they are read as text. @default false
   */
  phonemes?: boolean;
}

/** The first chunk is cut at a clause boundary when longer than this, so the first audio comes quickly. */
const FIRST_CHUNK_TARGET_CHARS = 160;
/** ...but never into a head shorter than this, which would sound clipped. */
const FIRST_CHUNK_MIN_CHARS = 40;

/**
 * Cleans, normalizes and splits text into speakable chunks (never returns empty strings).
 * Each chunk is at most `maxChunkChars` long (only a single word longer than the limit is cut);
 * a first chunk longer than 160 characters is also cut at its first clause boundary (; : — ,)
 * between 40 and 160 characters, so that streaming starts fast.
 * Throws RangeError when `maxChunkChars` is not a finite number >= 1.
 */
export function prepareText(text: string, options: PrepareTextOptions = {}): string[] {
  return prepareSpeech(text, options).map((chunk) => chunk.text);
}

/**
 * prepareText with the pronunciation lexicon of `options.lexicon` applied: each chunk's text, and
 * for an engine that takes phonemes (`options.phonemes`) its parts said by their IPA. The chunks
 * are cut as prepareText cuts them, a lexicon word counting as one character.
 */
export function prepareSpeech(text: string, options: PrepareTextOptions = {}): SpeechText[] {
  const maxChars = checkMaxChunkChars(options.maxChunkChars ?? 400);
  const normalize = (options.normalize ?? true) && isEnglish(options.language ?? 'en');
  const marked = markLexiconWords(text, options.lexicon);
  const chunks: string[] = [];
  for (const sentence of splitSentences(marked.text)) {
    const spoken = normalize ? normalizeEnglish(sentence) : sentence;
    for (const chunk of chunkSentence(spoken, maxChars)) {
      if (isSpeakable(chunk)) chunks.push(chunk);
    }
  }
  const [first, ...rest] = chunks;
  if (first === undefined) return [];
  const firstMax = Math.min(maxChars, options.firstChunkMaxChars ?? FIRST_CHUNK_TARGET_CHARS);
  const cut = [...splitAtFirstClause(first, firstMax, options.firstChunkMinChars ?? FIRST_CHUNK_MIN_CHARS, options.firstChunkCutAtWord ?? false), ...rest];
  return cut.map((chunk) => expandLexiconMarks(chunk, marked, options.phonemes ?? false));
}
