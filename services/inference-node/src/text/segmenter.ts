/**
 * Cuts text that arrives in pieces (a language model's tokens, a user typing) into the pieces an
 * interactive session speaks, as soon as each one's end is known: at a sentence end once the text
 * after it confirms it (the sentence splitter's rules: "Dr. Smith" is not cut, "Hi. Then" is), at
 * a blank line, and at a clause boundary (, ; : and dashes followed by a space): a context's
 * first piece at its first clause past a few words, so its audio starts after the first clause;
 * later ones only past a longer stretch, since whole sentences sound better and the audio of the
 * first is already playing. Text with no boundary at all is cut at a space once it is long.
 * Everything is counted in characters as sent, so the pieces' `chars` and what is still buffered
 * add up to the text pushed (metering counts what was spoken of it).
 */
import { clauseBreakAt, hardCut } from './chunks.js';
import { sentenceEnds } from './sentences.js';

/** A piece to speak. */
export interface TextSegment {
  /** The text to speak, trimmed (may hold nothing speakable: "..."). */
  readonly text: string;
  /** Characters of the text as sent it consumed, the white space after it included. */
  readonly chars: number;
}

/** Where TextSegmenter cuts. */
export interface SegmenterOptions {
  /** The first piece is cut at its first clause boundary at least this far in. @default 20 */
  readonly firstClauseMinChars?: number;
  /** Later pieces are cut at a clause boundary at least this far in (else at sentence ends). @default 100 */
  readonly clauseMinChars?: number;
  /** Text with no boundary is cut at its last space within this many characters. @default 300 */
  readonly maxChars?: number;
}

const BLANK_LINE = /\n[^\S\n]*\n/;

/** The pieces of one utterance whose text arrives in pieces. */
export class TextSegmenter {
  private buffer = '';
  private cutOnce = false;
  private readonly firstClauseMinChars: number;
  private readonly clauseMinChars: number;
  private readonly maxChars: number;

  constructor(options: SegmenterOptions = {}) {
    this.firstClauseMinChars = options.firstClauseMinChars ?? 20;
    this.clauseMinChars = options.clauseMinChars ?? 100;
    this.maxChars = Math.max(1, options.maxChars ?? 300);
  }

  /** Characters pushed and not yet handed out. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Adds text; returns the pieces whose end is now known, in order. */
  push(text: string): TextSegment[] {
    this.buffer += text;
    const out: TextSegment[] = [];
    for (let cut = this.nextCut(); cut !== undefined; cut = this.nextCut()) out.push(this.take(cut));
    return out;
  }

  /** Hands out everything buffered as one piece (flush, end of input); undefined when nothing is. */
  flush(): TextSegment | undefined {
    if (this.buffer === '') return undefined;
    return this.take(this.buffer.length);
  }

  /** Drops what is buffered (cancel); returns its characters. */
  clear(): number {
    const dropped = this.buffer.length;
    this.buffer = '';
    return dropped;
  }

  /** The end of the next piece in the buffer, or undefined while it is not known yet. */
  private nextCut(): number | undefined {
    const text = this.buffer;
    const body = text.trimEnd().length;
    if (body === 0) return undefined;
    let cut = Number.POSITIVE_INFINITY;
    // A sentence end counts once a word after it shows that it is one (abbreviations, initials).
    const end = sentenceEnds(text).find((e) => e < body);
    if (end !== undefined) cut = end;
    const blank = BLANK_LINE.exec(text);
    if (blank !== null && blank.index > 0 && blank.index < body) cut = Math.min(cut, blank.index);
    const clauseMin = this.cutOnce ? this.clauseMinChars : this.firstClauseMinChars;
    for (let i = Math.max(1, clauseMin - 1); i < Math.min(cut, body); i++) {
      if (clauseBreakAt(text, i) !== undefined) {
        cut = i + 1;
        break;
      }
    }
    if (cut !== Number.POSITIVE_INFINITY) return cut;
    if (body <= this.maxChars) return undefined;
    const space = text.lastIndexOf(' ', this.maxChars);
    return space > 0 ? space : hardCut(text, this.maxChars);
  }

  /** Takes the buffer up to `cut` and the white space after it. */
  private take(cut: number): TextSegment {
    let end = cut;
    while (end < this.buffer.length && /\s/.test(this.buffer[end]!)) end++;
    const segment = { text: this.buffer.slice(0, cut).trim(), chars: end };
    this.buffer = this.buffer.slice(end);
    this.cutOnce = true;
    return segment;
  }
}
