/**
 * Cuts sentences that are too long for an engine into chunks, preferring clause boundaries
 * (; : — then ,) over plain spaces, and spaces over cutting inside a word.
 */

const STRONG_BREAK = /[;:\u2014\u2013\uFF1A\uFF1B]/;
const COMMA_BREAK = /[,\uFF0C\u3001]/;
// Punctuation after which a cut is fine even without a following space (dashes, CJK marks).
const BREAK_WITHOUT_SPACE = /[\u2014\u2013\uFF0C\u3001\uFF1A\uFF1B]/;

/** Where a chunk of at most `max` characters may end inside `text`; -1 when nowhere fits. */
interface Cuts {
  /** End of the chunk after the last ; : — within reach. */
  readonly strong: number;
  /** End of the chunk after the last comma within reach. */
  readonly comma: number;
  /** End of the chunk before the last space within reach. */
  readonly space: number;
}

/** 'strong' or 'comma' when a chunk may end right after text[i], else undefined. */
export function clauseBreakAt(text: string, i: number): 'strong' | 'comma' | undefined {
  const ch = text[i]!;
  const next = text[i + 1];
  if (next === undefined || (next !== ' ' && !BREAK_WITHOUT_SPACE.test(ch))) return undefined;
  if (STRONG_BREAK.test(ch)) return 'strong';
  return COMMA_BREAK.test(ch) ? 'comma' : undefined;
}

function findCuts(text: string, max: number, minLen: number): Cuts {
  let strong = -1;
  let comma = -1;
  let space = -1;
  const last = Math.min(max, text.length - 1);
  for (let i = 1; i <= last; i++) {
    if (text[i] === ' ') {
      space = i;
      continue;
    }
    if (i >= max || i + 1 < minLen) continue;
    const kind = clauseBreakAt(text, i);
    if (kind === 'strong') strong = i + 1;
    else if (kind === 'comma') comma = i + 1;
  }
  return { strong, comma, space };
}

/** Largest cut at most `max` that does not split a surrogate pair or detach a combining mark. */
export function hardCut(text: string, max: number): number {
  let cut = max;
  while (cut > 1) {
    const code = text.charCodeAt(cut);
    const isLowSurrogate = code >= 0xdc00 && code <= 0xdfff;
    if (!isLowSurrogate && !/^[\p{M}\u200C\u200D\uFE0F]/u.test(text.slice(cut, cut + 2))) break;
    cut--;
  }
  return cut;
}

/**
 * Splits `sentence` into chunks of at most `maxChars` characters: at the last ; : or dash that
 * leaves a chunk of at least a third of the limit, else at such a comma, else at the last space.
 * Only a single word longer than the limit is cut inside the word (at a character boundary).
 */
export function chunkSentence(sentence: string, maxChars: number): string[] {
  const chunks: string[] = [];
  let rest = sentence.trim();
  const minLen = Math.floor(maxChars / 3);
  while (rest.length > maxChars) {
    const cuts = findCuts(rest, maxChars, minLen);
    const cut = cuts.strong > 0 ? cuts.strong : cuts.comma > 0 ? cuts.comma : cuts.space > 0 ? cuts.space : hardCut(rest, maxChars);
    chunks.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') chunks.push(rest);
  return chunks;
}

/**
 * Cuts `text` once, at the first clause boundary (; : — or ,) that leaves a head of `minChars` to
 * `maxChars` characters, for a quick first chunk. Without such a boundary it cuts at the last space
 * that keeps the head within those bounds when `cutAtWord`, else returns the text whole (also when
 * it is not longer than `maxChars`).
 */
export function splitAtFirstClause(text: string, maxChars: number, minChars: number, cutAtWord = false): string[] {
  if (text.length <= maxChars) return [text];
  for (let i = Math.max(1, minChars - 1); i < maxChars; i++) {
    if (clauseBreakAt(text, i) !== undefined) return [text.slice(0, i + 1), text.slice(i + 1).trimStart()];
  }
  if (cutAtWord) {
    const space = text.lastIndexOf(' ', maxChars);
    if (space >= minChars) return [text.slice(0, space), text.slice(space + 1).trimStart()];
  }
  return [text];
}

/** Validates a chunk limit: a finite number of at least 1, rounded down. Throws RangeError otherwise. */
export function checkMaxChunkChars(value: number): number {
  if (!Number.isFinite(value) || value < 1) {
    throw new RangeError(`maxChunkChars must be a finite number >= 1, got ${value}`);
  }
  return Math.floor(value);
}
