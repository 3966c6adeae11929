/**
 * Clause splitting and re-assembly for Piper-style phonemization.
 *
 * Piper (piper-phonemize) calls `espeak_TextToPhonemesWithTerminator`, which reports the punctuation
 * that ended each clause, and writes that punctuation back into the phoneme string. Debian's
 * espeak-ng 1.51 lacks that function, so the text is split at punctuation here, each clause is
 * phonemized on its own with `espeak_TextToPhonemes`, and the punctuation is re-inserted the way
 * Piper does:
 * - `,` `;` `:` end a clause and are written followed by a space;
 * - runs of `.` `!` `?` `…` end a sentence and are written as one mark: `?` if the run holds one,
 *   else `!` if it holds one, else `.`;
 * - a mark counts only when followed by white space or the end of the text (optionally after
 *   closing quotes or brackets), so "3.14" or "10:30" do not split;
 * - text after the last mark forms a final sentence without a mark.
 * Each sentence is one output string; the phonemes are NFD-normalized as Piper does.
 */

/** One clause: its text and the mark that ended it. */
export interface Clause {
  readonly text: string;
  /** "," ";" ":" "." "!" "?" or "" for text after the last mark. */
  readonly mark: string;
  /** True when the clause ends a sentence. */
  readonly endsSentence: boolean;
}

const MARK = /([.!?\u2026]+|[,;:])["'\u201d\u2019\u00bb)\]]*(?=\s|$)/gu;

/** Splits normalized text into clauses at punctuation (see the module comment). */
export function splitClauses(text: string): Clause[] {
  const clauses: Clause[] = [];
  let from = 0;
  for (const m of text.matchAll(MARK)) {
    const run = m[1]!;
    const sentence = !/^[,;:]$/.test(run);
    const mark = sentence ? (run.includes('?') ? '?' : run.includes('!') ? '!' : '.') : run;
    clauses.push({ text: text.slice(from, m.index).trim(), mark, endsSentence: sentence });
    from = m.index + m[0].length;
  }
  const rest = text.slice(from).trim();
  if (rest !== '') clauses.push({ text: rest, mark: '', endsSentence: true });
  return clauses;
}

/**
 * Joins per-clause phonemes (same order as `clauses`) into one string per sentence with the marks
 * re-inserted. Sentences without any phoneme are dropped.
 */
export function joinClauses(clauses: readonly Clause[], phonemes: readonly string[]): string[] {
  const sentences: string[] = [];
  let current = '';
  let spoken = false;
  clauses.forEach((clause, i) => {
    const ipa = (phonemes[i] ?? '').normalize('NFD').trim();
    if (ipa !== '') {
      current += ipa;
      spoken = true;
    }
    current += clause.endsSentence ? clause.mark : `${clause.mark} `;
    if (clause.endsSentence) {
      if (spoken) sentences.push(current.trim());
      current = '';
      spoken = false;
    }
  });
  if (spoken) sentences.push(current.trim());
  return sentences;
}
