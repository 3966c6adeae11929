/**
 * Sentence splitting: on . ! ? … (and CJK 。！？), on paragraph breaks and on line breaks that are
 * not hard wraps; never after titles ("Dr."), inside decimals, URLs or e-mail addresses, after
 * initials ("J. R. R. Tolkien") or before a lower-case word.
 */
import { OPENING_PUNCTUATION, periodEndsSentence, wordBeforePeriod } from './abbreviations.js';
import { checkMaxChunkChars, chunkSentence } from './chunks.js';
import { cleanText, isSpeakable } from './cleanup.js';

const TERMINATOR_RUN = /[.!?\u2026\u203C\u2047-\u2049\u0964\u0965\u061F\u06D4\u3002\uFF01\uFF1F\uFF0E]+/;
// Full-width terminators end a sentence without a following space.
const SPACELESS_TERMINATOR = /[\u3002\uFF01\uFF1F\uFF0E]/;
const CLOSING = /["'\u201D\u2019)\]}\u00BB\u203A\u300D\u300F\uFF09]/;
// How much of the following text the boundary rules look at.
const LOOKAHEAD_CHARS = 48;

/**
 * Groups cleaned lines into blocks that are split separately: a blank line always separates, a
 * single line break separates unless it is a hard wrap (the line ends mid-sentence and the next one
 * starts in lower case).
 */
function blocksOf(text: string): string[] {
  const blocks: string[] = [];
  for (const paragraph of text.split('\n\n')) {
    let current = '';
    for (const line of paragraph.split('\n')) {
      if (current === '') current = line;
      else if (/[\p{L}\p{N},]$/u.test(current) && /^\p{Ll}/u.test(line)) current += ` ${line}`;
      else {
        blocks.push(current);
        current = line;
      }
    }
    if (current !== '') blocks.push(current);
  }
  return blocks;
}

/** True when the terminator run at [index, index + run.length) ends a sentence. */
function endsSentence(block: string, sentenceStart: number, index: number, run: string, following: string): boolean {
  const rest = following.trimStart().replace(OPENING_PUNCTUATION, '');
  if (rest === '') return true;
  if (/\p{Ll}/u.test(rest[0]!)) return false;
  if (run !== '.') return true;
  const word = wordBeforePeriod(block, index);
  const atStart = block.slice(sentenceStart, index).trim().replace(OPENING_PUNCTUATION, '') === word;
  return periodEndsSentence(word, following, atStart);
}

/**
 * Offsets just after each sentence end in `block` (its terminator run and closing quotes), in
 * order. The end of the block is not one: what follows the last terminator decides.
 */
export function sentenceEnds(block: string): number[] {
  const ends: number[] = [];
  let start = 0;
  // Its own expression per call: a shared global one would carry lastIndex from one call to the next.
  const terminators = new RegExp(TERMINATOR_RUN.source, 'g');
  for (let m = terminators.exec(block); m !== null; m = terminators.exec(block)) {
    const run = m[0];
    let end = m.index + run.length;
    while (end < block.length && CLOSING.test(block[end]!)) end++;
    if (end < block.length && !/\s/.test(block[end]!) && !SPACELESS_TERMINATOR.test(run)) continue;
    if (!endsSentence(block, start, m.index, run, block.slice(end, end + LOOKAHEAD_CHARS))) continue;
    ends.push(end);
    start = end;
  }
  return ends;
}

function splitBlock(block: string, out: string[]): void {
  const push = (sentence: string): void => {
    const trimmed = sentence.trim();
    if (isSpeakable(trimmed)) out.push(trimmed);
  };
  let start = 0;
  for (const end of sentenceEnds(block)) {
    push(block.slice(start, end));
    start = end;
  }
  push(block.slice(start));
}

/**
 * Splits text into sentences, respecting abbreviations, decimals, initials, ellipses, quotes.
 * Cleans control characters and white space first; never returns empty or punctuation-only strings.
 * With `maxChunkChars`, longer sentences are further cut at clause boundaries, then at spaces;
 * without it sentences are returned whole.
 */
export function splitSentences(text: string, options: { maxChunkChars?: number } = {}): string[] {
  const sentences: string[] = [];
  for (const block of blocksOf(cleanText(text))) splitBlock(block, sentences);
  if (options.maxChunkChars === undefined) return sentences;
  const max = checkMaxChunkChars(options.maxChunkChars);
  return sentences.flatMap((sentence) => chunkSentence(sentence, max));
}
