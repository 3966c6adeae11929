/**
 * Forced alignment: where each word of a known text starts and ends in speech, for engines that
 * report no timings of their own (piper). The recognizer (Vosk, best path with word times) decodes
 * the audio with its search restricted to a grammar of the text's words. Vosk's grammar limits the
 * vocabulary, not the order (measured: it may hear a word of the text in another's place, or skip
 * one), so the words it reports are matched back to the text's tokens by edit distance. A token
 * heard as itself is covered; one heard as another word takes that word's times, and one not
 * placed at all (outside the vocabulary, or skipped) gets times interpolated between its
 * neighbours (a word outside the vocabulary is "[unk]" in the grammar, so that the recognizer
 * has something to hear in its place, but is interpolated too); both are marked as not covered.
 *
 * Resolution: Vosk's small English model emits one frame per 30 ms (10 ms feature frames,
 * subsampled by 3), so every boundary the recognizer reports is a multiple of 30 ms
 * (ALIGNMENT_FRAME_SEC), and comes about one frame late (ALIGNMENT_DELAY_SEC, subtracted).
 * Accuracy against the engines' own timings is measured by bench/word-timing.ts (bench/README.md).
 */
import type { PcmAudio } from '../audio/pcm.js';
import { rms } from '../audio/dsp.js';
import { samplesAt } from '../audio/resample.js';
import type { WordTiming } from '../engines/engine.js';

/** Rate the recognizer runs at, Hz. */
export const ALIGNMENT_RATE = 16_000;

/** Spacing of the aligned boundaries: the small English model's output frame (10 ms x 3), s. */
export const ALIGNMENT_FRAME_SEC = 0.03;

/**
 * How late the recognizer reports word boundaries, s: one output frame. Against three engines' own
 * timings (flite, espeak-ng, festival) Vosk's boundaries came out late by about this much on every
 * engine alike, so it is a property of the recognizer's model, not of an engine, and is subtracted
 * from every boundary it reports; one frame is the model's constant, not a value fitted to the
 * measurement (bench/README.md, `word-timing`).
 */
export const ALIGNMENT_DELAY_SEC = ALIGNMENT_FRAME_SEC;

/** Options of alignWords. */
export interface AlignOptions {
  /** Subtracted from the recognizer's times (see ALIGNMENT_DELAY_SEC). @default ALIGNMENT_DELAY_SEC */
  readonly delaySec?: number;
}

/** Vosk's token for speech outside the grammar's words. */
const UNKNOWN = '[unk]';

/** A word the recognizer placed, seconds from the audio's start. */
export interface RecognizedWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** What the aligner needs of a recognizer (VoskModels implements it). */
export interface GrammarRecognizer {
  /** Whether `word` (lower case) is in the recognizer's vocabulary. */
  knowsWord(word: string): boolean;
  /** The words of 16 kHz audio recognized with the search restricted to the phrases of `grammar`. */
  recognizeGrammar(pcm16k: Float32Array, grammar: readonly string[]): Promise<readonly RecognizedWord[]>;
}

/** A token of the text and where it was found in the audio. */
export interface AlignedWord extends WordTiming {
  /**
   * True when the recognizer heard every word of the token there. False when it heard another word
   * in its place (whose times it then has) or nothing (times interpolated between its neighbours'):
   * a token outside the vocabulary, such as a number written in digits, or one it skipped.
   */
  readonly covered: boolean;
}

/**
 * The text's tokens as the engines name them in their word timings: whitespace-separated, without
 * surrounding punctuation (a token of punctuation alone is no word).
 */
export function alignmentTokens(text: string): string[] {
  return text
    .split(/\s+/u)
    .map((t) => t.replace(/^[^\p{L}\p{N}$£€#@]+|[^\p{L}\p{N}%]+$/gu, ''))
    .filter((t) => t !== '');
}

/**
 * Where each token of `text` (alignmentTokens) starts and ends in `audio` (any rate; resampled to
 * ALIGNMENT_RATE), in seconds, in order, within the audio's duration. Costs one recognizer pass
 * over the audio (bench/README.md, `word-timing`, gives the time per second of audio).
 */
export async function alignWords(audio: PcmAudio, text: string, recognizer: GrammarRecognizer, options: AlignOptions = {}): Promise<AlignedWord[]> {
  const delay = options.delaySec ?? ALIGNMENT_DELAY_SEC;
  const tokens = alignmentTokens(text);
  const duration = audio.samples.length / audio.sampleRate;
  if (tokens.length === 0) return [];
  const tokenWords = tokens.map((t) => grammarWords(t, recognizer));
  const expected = tokenWords.flat();
  const heard = expected.length === 0 || audio.samples.length === 0 ? [] : await recognizer.recognizeGrammar(samplesAt(audio, ALIGNMENT_RATE), [expected.join(' ')]);
  const matchOf = matchWords(expected, heard.map((w) => w.word));
  const spans: ({ start: number; end: number; covered: boolean } | undefined)[] = [];
  let at = 0;
  for (const words of tokenWords) {
    const matches = words.map((_, k) => matchOf[at + k]).filter((m): m is WordMatch => m !== undefined);
    // "[unk]" is in the grammar to take up the sound of words outside the vocabulary, but where the
    // recognizer puts it is not reliably that token's place: such tokens are interpolated.
    const matched = matches.map((m) => heard[m.heard]!).filter((w) => w.word !== UNKNOWN).map((w) => ({ start: w.start - delay, end: w.end - delay }));
    const covered = words.length > 0 && matches.length === words.length && matches.every((m) => m.same) && !words.includes(UNKNOWN);
    spans.push(matched.length === 0 ? undefined : { start: Math.min(...matched.map((w) => w.start)), end: Math.max(...matched.map((w) => w.end)), covered });
    at += words.length;
  }
  return interpolate(tokens, spans, duration, speechBounds(audio));
}

/** Share of the loudest 10 ms frame's RMS above which a frame is speech (-34 dB), for speechBounds. */
const SPEECH_SHARE = 0.02;

/**
 * Where speech starts and ends in `audio`, s: the first and last 10 ms frame whose RMS is above
 * SPEECH_SHARE of the loudest one's (the whole audio when it is silent). Bounds the interpolated
 * tokens at the edges, so a first word the recognizer skipped does not take the leading silence.
 */
function speechBounds(audio: PcmAudio): { from: number; to: number } {
  const frame = Math.max(1, Math.round(audio.sampleRate / 100));
  const energy: number[] = [];
  for (let at = 0; at < audio.samples.length; at += frame) energy.push(rms(audio.samples.subarray(at, at + frame)));
  const threshold = energy.reduce((m, e) => Math.max(m, e), 0) * SPEECH_SHARE;
  const first = energy.findIndex((e) => e > threshold);
  const duration = audio.samples.length / audio.sampleRate;
  if (first < 0) return { from: 0, to: duration };
  const last = energy.length - 1 - [...energy].reverse().findIndex((e) => e > threshold);
  return { from: (first * frame) / audio.sampleRate, to: Math.min(duration, ((last + 1) * frame) / audio.sampleRate) };
}

/**
 * The grammar words of a token: lower case, split at characters other than letters, digits and
 * apostrophes (edge apostrophes dropped unless the vocabulary has the word with them); "[unk]" for
 * a word outside the vocabulary.
 */
function grammarWords(token: string, recognizer: GrammarRecognizer): string[] {
  const out: string[] = [];
  for (const piece of token.toLowerCase().replace(/[\u2018\u2019]/gu, "'").split(/[^\p{L}\p{N}']+/u)) {
    const bare = piece.replace(/^'+|'+$/gu, '');
    if (bare === '') continue;
    out.push(recognizer.knowsWord(piece) ? piece : recognizer.knowsWord(bare) ? bare : UNKNOWN);
  }
  return out;
}

/** How an expected word lines up with the heard ones. */
export interface WordMatch {
  /** Index of the heard word it lines up with. */
  readonly heard: number;
  /** True when that is the same word; false when another word was heard in its place. */
  readonly same: boolean;
}

/**
 * Minimum-edit-distance alignment of the expected words with the heard ones: for each expected
 * word, the heard word it lines up with (the same word, or another one in its place), if any.
 */
export function matchWords(expected: readonly string[], heard: readonly string[]): (WordMatch | undefined)[] {
  const n = expected.length;
  const m = heard.length;
  const cost = Array.from({ length: n + 1 }, (_, i) => Int32Array.from({ length: m + 1 }, (_, j) => i + j));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const same = expected[i - 1] === heard[j - 1] ? 0 : 1;
      cost[i]![j] = Math.min(cost[i - 1]![j]! + 1, cost[i]![j - 1]! + 1, cost[i - 1]![j - 1]! + same);
    }
  }
  const out: (WordMatch | undefined)[] = new Array<WordMatch | undefined>(n).fill(undefined);
  for (let i = n, j = m; i > 0 && j > 0; ) {
    const same = expected[i - 1] === heard[j - 1];
    if (cost[i]![j] === cost[i - 1]![j - 1]! + (same ? 0 : 1)) {
      out[i - 1] = { heard: j - 1, same };
      i--;
      j--;
    } else if (cost[i]![j] === cost[i - 1]![j]! + 1) i--;
    else j--;
  }
  return out;
}

/**
 * Fills the tokens without a span: each run of them shares the gap between the neighbouring spans
 * (where speech starts and ends, at the edges) in proportion to their lengths in characters. All
 * times stay within the audio's `duration`, spans in order.
 */
function interpolate(tokens: readonly string[], spans: readonly ({ start: number; end: number; covered: boolean } | undefined)[], duration: number, speech: { from: number; to: number }): AlignedWord[] {
  const out: AlignedWord[] = [];
  const clamp = (t: number): number => Math.min(duration, Math.max(0, t));
  for (let i = 0; i < tokens.length; ) {
    const span = spans[i];
    if (span !== undefined) {
      const start = clamp(Math.max(span.start, out[out.length - 1]?.end ?? 0));
      out.push({ word: tokens[i]!, start, end: Math.max(start, clamp(span.end)), covered: span.covered });
      i++;
      continue;
    }
    let j = i;
    while (j < tokens.length && spans[j] === undefined) j++;
    const from = out[out.length - 1]?.end ?? Math.min(speech.from, j < tokens.length ? clamp(spans[j]!.start) : speech.to);
    // A trailing run ends where speech ends, or at the audio's end when the last word heard ends later.
    const to = j < tokens.length ? Math.max(from, clamp(spans[j]!.start)) : speech.to > from ? speech.to : duration;
    const run = tokens.slice(i, j);
    const chars = run.reduce((s, t) => s + t.length, 0);
    let t = from;
    for (const token of run) {
      const end = t + ((to - from) * token.length) / chars;
      out.push({ word: token, start: t, end, covered: false });
      t = end;
    }
    i = j;
  }
  return out;
}
