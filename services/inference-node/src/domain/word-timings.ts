/**
 * Word timings of a synthesis: where each word of the text is in the audio the node sends. Engines
 * report their words in their own audio (`EngineOutput.words`); the pipeline carries them through
 * what it does to a piece (time-stretch, edge trimming) into output time.
 */
import type { PcmAudio } from '../audio/pcm.js';
import type { EngineOutput, WordTiming } from '../engines/engine.js';
import type { RespelledSegment } from '../text/lexicon.js';

export type { WordTiming } from '../engines/engine.js';

/** Times the tokens of `text` in `audio` by forced alignment (the node's ASR model, analysis/align.ts). */
export type WordAligner = (audio: PcmAudio, text: string) => Promise<readonly WordTiming[]>;

/**
 * The words of one engine call, seconds from the start of its audio: the engine's own timings;
 * for an engine without them (piper), the aligner's of `text` (what the engine spoke) when one is
 * given (the caller asked for timings and the node has the model for the language), else none.
 */
export async function wordsOfPiece(output: EngineOutput, text: string, aligner?: WordAligner): Promise<readonly WordTiming[]> {
  if (output.words !== undefined && output.words.length > 0) return output.words;
  if (aligner === undefined || output.audio.samples.length === 0) return [];
  return aligner(output.audio, text);
}

/** What happened to a piece between the engine and the output, for `placeWords`. */
export interface WordPlacement {
  /** Factor the node time-stretched the piece by (1 = not stretched: the engine applied its speed). */
  readonly stretch: number;
  /** Seconds cut from the piece's start (edge trimming), after stretching. */
  readonly cutSec: number;
  /** The piece's final length, seconds. */
  readonly lengthSec: number;
  /** Output audio before the piece, seconds. */
  readonly offsetSec: number;
  /** End of the previous piece's last word, seconds of output: no word starts before it. */
  readonly notBeforeSec: number;
}

/**
 * Carries an engine's word timings into output time: divided by the stretch, shifted by the cut,
 * clamped to the piece, then offset by the audio before it; in order and without overlap.
 * Pitch shifting keeps time, so it plays no part.
 */
export function placeWords(words: readonly WordTiming[], p: WordPlacement): WordTiming[] {
  const clamp = (t: number): number => Math.min(p.lengthSec, Math.max(0, t / p.stretch - p.cutSec));
  const placed: WordTiming[] = [];
  let floor = p.notBeforeSec;
  for (const w of words) {
    const start = Math.max(floor, p.offsetSec + clamp(w.start));
    const end = Math.max(start, p.offsetSec + clamp(w.end));
    placed.push({ word: w.word, start, end });
    floor = end;
  }
  return placed;
}

/** The tokens of `text` that are spoken (those with a letter or digit), as engines time them. */
const spokenTokens = (text: string): string[] => text.split(/\s+/u).filter((t) => /[\p{L}\p{N}]/u.test(t));

/**
 * Names the written words where lexicon respellings replaced them: the timings of a respelling's
 * tokens become one span, shared among the written words it stands for in proportion to their
 * letters. Words of an engine that tokenized the text otherwise than by white space (counts differ)
 * are left as they are.
 */
export function writtenWords(words: readonly WordTiming[], segments: readonly RespelledSegment[] | undefined): readonly WordTiming[] {
  if (segments === undefined || words.length === 0) return words;
  const total = segments.reduce((n, s) => n + spokenTokens(s.read).length, 0);
  if (total !== words.length) return words;
  const out: WordTiming[] = [];
  let i = 0;
  for (const segment of segments) {
    const span = words.slice(i, i + spokenTokens(segment.read).length);
    i += span.length;
    if (segment.read === segment.written) {
      out.push(...span);
      continue;
    }
    const written = spokenTokens(segment.written);
    const first = span[0];
    const last = span.at(-1);
    if (first === undefined || last === undefined || written.length === 0) continue;
    const letters = written.reduce((n, w) => n + w.length, 0);
    let at = first.start;
    for (const word of written) {
      const end = at + ((last.end - first.start) * word.length) / letters;
      out.push({ word, start: at, end });
      at = end;
    }
  }
  return out;
}
