/**
 * What live mode sends while a person types: the text box's new text cut into pieces on word
 * boundaries (a word is sent once the space after it is typed), a piece that ends a sentence (or a
 * line) flushed so the server speaks it at once, and on a pause everything typed so far flushed,
 * the unfinished word too. Text already sent that the person then changes is not unsaid: the
 * changed part counts as new text.
 */

/** A piece of text for the server; `flush` asks it to speak what it holds now. */
export interface Piece {
  readonly text: string;
  readonly flush: boolean;
}

/** A sentence (or clause-ending line) closes at the end of the piece. */
const SENTENCE_END = /(?:[.!?…]["'”’)\]]*\s+|\n\s*)$/u;

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Follows the text box: `typed()` after each change, `paused()` after a pause, `restart()` on stop. */
export class TypingFeed {
  /** The box's text up to where it has been sent. */
  private sent: string;
  /** Text was sent since the last flush. */
  private unflushed = false;

  /** `already`: the box's text when live mode began (not spoken). */
  constructor(already: string) {
    this.sent = already;
  }

  /** The piece to send now that the box holds `text`, if a word or sentence has been completed. */
  typed(text: string): Piece | undefined {
    const rest = this.rest(text);
    const cut = Math.max(rest.lastIndexOf(' '), rest.lastIndexOf('\n'), rest.lastIndexOf('\t')) + 1;
    if (cut === 0) return undefined;
    const piece = rest.slice(0, cut);
    return this.take(piece, SENTENCE_END.test(piece));
  }

  /** The person stopped typing: everything not sent yet, flushed (undefined when nothing waits). */
  paused(text: string): Piece | undefined {
    const rest = this.rest(text);
    if (rest.trim() === '' && !this.unflushed) return undefined;
    return this.take(rest, true);
  }

  /** Nothing typed so far will be spoken (the person stopped the speech). */
  restart(text: string): void {
    this.sent = text;
    this.unflushed = false;
  }

  private rest(text: string): string {
    if (!text.startsWith(this.sent)) this.sent = this.sent.slice(0, commonPrefixLength(this.sent, text));
    return text.slice(this.sent.length);
  }

  private take(piece: string, flush: boolean): Piece {
    this.sent += piece;
    this.unflushed = !flush;
    return { text: piece, flush };
  }
}
