/**
 * Character timings from word timings: where each character of a text is in its audio, as
 * ElevenLabs' `alignment` gives it. The node reports words (the text's tokens, seconds from the
 * start of the audio); each word's span is shared out evenly over its letters and digits, and the
 * characters between two words (spaces, punctuation, markup) share the gap between them. Words
 * arrive in order, all at once (a whole file) or a few at a time (a stream), so the aligner walks
 * the text once. `normalized` is the same for the words as the engine read them, joined by single
 * spaces (ElevenLabs' `normalized_alignment`).
 */
import type { WordTiming } from '@tts/proto/synthesis';

/** Characters with their times, seconds from the start of the audio (to the millisecond). */
export interface CharacterTimes {
  readonly characters: string[];
  readonly starts: number[];
  readonly ends: number[];
}

/** The characters a batch of words brought: of the text, and of the words as read. */
export interface AlignedBatch {
  readonly text: CharacterTimes;
  readonly normalized: CharacterTimes;
}

const ms = (s: number): number => Math.round(s * 1000) / 1000;

/** A letter or digit: what a word's match starts with and is made of. */
const WORD_CHAR = /[\p{L}\p{N}]/u;

function emptyTimes(): { characters: string[]; starts: number[]; ends: number[] } {
  return { characters: [], starts: [], ends: [] };
}

/** Appends `chars` spread evenly over [from, to] (a zero span when to <= from). */
function spread(into: { characters: string[]; starts: number[]; ends: number[] }, chars: readonly string[], from: number, to: number): void {
  const end = Math.max(from, to);
  const step = chars.length === 0 ? 0 : (end - from) / chars.length;
  chars.forEach((c, i) => {
    into.characters.push(c);
    into.starts.push(ms(from + step * i));
    // The last ends exactly at `end`, where the next span starts: no rounding apart.
    into.ends.push(ms(i === chars.length - 1 ? end : from + step * (i + 1)));
  });
}

/** Walks a text's characters (code points, as ElevenLabs counts them) as its words' timings arrive. */
export class TextAligner {
  private readonly chars: string[] = [];
  /** The text's letters and digits in lower case, one entry per character ('' for the others). */
  private readonly folded: string[] = [];
  /** Characters given out so far. */
  private cursor = 0;
  /** End of the last character given out, s. */
  private lastEnd = 0;
  private wordsSeen = 0;
  /** End of the last word as read, s. */
  private lastEndNormalized = 0;

  constructor(text = '') {
    this.append(text);
  }

  /** More text after what the aligner has (a streaming session's text arrives in pieces). */
  append(text: string): void {
    for (const c of text) {
      this.chars.push(c);
      this.folded.push(WORD_CHAR.test(c) ? c.toLowerCase() : '');
    }
  }

  /**
   * The characters up to the end of the last of `words` found in the text, and the words as read.
   * A word is found at the next place at or after the previous one where its letters and digits
   * start a token of the text; one not found (a number the engine expanded, a token of SSML) adds
   * no characters of the text, which then come with the next word found.
   */
  take(words: readonly WordTiming[]): AlignedBatch {
    const text = emptyTimes();
    const normalized = emptyTimes();
    for (const w of words) {
      // Words never overlap, so a word starts no earlier than the end of the last (of the text, too).
      const start = Math.max(w.startSec, this.lastEndNormalized);
      const end = Math.max(w.endSec, start);
      if (this.wordsSeen > 0) spread(normalized, [' '], this.lastEndNormalized, start);
      spread(normalized, Array.from(w.word), start, end);
      this.lastEndNormalized = end;
      this.wordsSeen++;
      const core = Array.from(w.word.toLowerCase()).filter((c) => WORD_CHAR.test(c));
      const found = this.find(core);
      if (found === undefined) continue;
      spread(text, this.chars.slice(this.cursor, found.from), this.lastEnd, start);
      spread(text, this.chars.slice(found.from, found.to), start, end);
      this.cursor = found.to;
      this.lastEnd = end;
    }
    return { text, normalized };
  }

  /** The characters not given out yet (after the last word), over [end of the last, `endSec`]. */
  rest(endSec: number): CharacterTimes {
    const text = emptyTimes();
    spread(text, this.chars.slice(this.cursor), this.lastEnd, Math.max(endSec, this.lastEnd));
    this.cursor = this.chars.length;
    return text;
  }

  /**
   * The characters [from, to) at or after the cursor that spell `core` from the start of a token,
   * punctuation inside it skipped (don't, U.S.) but never white space; undefined when none do.
   */
  private find(core: readonly string[]): { from: number; to: number } | undefined {
    if (core.length === 0) return undefined;
    for (let from = this.cursor; from < this.chars.length; from++) {
      if (this.folded[from] !== core[0] || (from > 0 && this.folded[from - 1] !== '')) continue;
      let at = from;
      let k = 0;
      while (at < this.chars.length && k < core.length) {
        if (this.folded[at] === core[k]) k++;
        else if (this.folded[at] !== '' || /\s/u.test(this.chars[at]!)) break;
        at++;
      }
      if (k === core.length) return { from, to: at };
    }
    return undefined;
  }
}

/** Both timings of a whole text: its words, then what follows the last one up to `audioSec`. */
export function alignText(text: string, words: readonly WordTiming[], audioSec: number): AlignedBatch {
  const aligner = new TextAligner(text);
  const { text: spoken, normalized } = aligner.take(words);
  const rest = aligner.rest(audioSec);
  return { text: { characters: [...spoken.characters, ...rest.characters], starts: [...spoken.starts, ...rest.starts], ends: [...spoken.ends, ...rest.ends] }, normalized };
}
