/**
 * Captions of a job's audio, built from the word timings the node reported: cues of whole words
 * (at most 7 words, 42 characters and 5 s each, a sentence's end ending its cue), written as WebVTT
 * or SubRip.
 */
import type { Job } from '@tts/proto/scheduler';
import type { WordTiming } from '@tts/proto/synthesis';
import { TtsError, isSsml } from '@tts/common';
import { requireCompleted } from './jobs-gateway.js';

/** Caption formats served. */
export type CaptionFormat = 'vtt' | 'srt';

/** The media type of each caption format. */
export const CAPTION_CONTENT_TYPES: Readonly<Record<CaptionFormat, string>> = { vtt: 'text/vtt', srt: 'application/x-subrip' };

/** Bounds of one cue: words, characters of its text, seconds. */
export const CUE_LIMITS = { words: 7, chars: 42, seconds: 5 } as const;

/** One caption cue. */
export interface Cue {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

const SENTENCE_END = /[.!?\u2026]['"\u2019\u201d)\]]*$/u;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

const WORD_CHAR = /[\p{L}\p{N}]/u;
const PUNCTUATION = /[^\s\p{L}\p{N}]/u;

/** Index of `word` in `text` from `from` as a whole word (not inside a longer one), or -1. */
function wholeWordAt(text: string, word: string, from: number): number {
  for (let i = text.indexOf(word, from); i >= 0; i = text.indexOf(word, i + 1)) {
    if (!WORD_CHAR.test(text[i - 1] ?? ' ') && !WORD_CHAR.test(text[i + word.length] ?? ' ')) return i;
  }
  return -1;
}

/**
 * Each word as the text writes it, with the punctuation around it (engines report the bare token),
 * and whether it ends a sentence. A word the text does not hold as such (an engine's expansion) is
 * shown as the engine reported it.
 */
function writtenWords(words: readonly WordTiming[], written: string): { shown: string; endsSentence: boolean }[] {
  // SSML markup (attributes included: a <sub> alias is not what the text shows) reads as spaces.
  const text = isSsml(written) ? written.replace(/<[^>]*>/g, (tag) => ' '.repeat(tag.length)) : written;
  const lower = text.toLowerCase();
  let at = 0;
  return words.map((w) => {
    const core = w.word.replace(EDGE_PUNCTUATION, '');
    const found = core === '' ? -1 : wholeWordAt(lower, core.toLowerCase(), at);
    if (found < 0) return { shown: w.word, endsSentence: SENTENCE_END.test(w.word) };
    let from = found;
    while (from > at && PUNCTUATION.test(text[from - 1]!)) from--;
    let to = found + core.length;
    while (to < text.length && PUNCTUATION.test(text[to]!)) to++;
    at = to;
    const shown = text.slice(from, to);
    return { shown, endsSentence: SENTENCE_END.test(shown) };
  });
}

/** Groups timed words into cues within CUE_LIMITS, a sentence's last word ending its cue. */
export function cuesOf(words: readonly WordTiming[], text: string): Cue[] {
  const written = writtenWords(words, text);
  const cues: Cue[] = [];
  let first = 0;
  let shown: string[] = [];
  const close = (last: number): void => {
    if (shown.length === 0) return;
    const start = words[first]!.startSec;
    cues.push({ start, end: Math.max(words[last]!.endSec, start + 0.001), text: shown.join(' ') });
    shown = [];
  };
  words.forEach((w, i) => {
    const word = written[i]!.shown;
    const full = shown.length >= CUE_LIMITS.words || [...shown, word].join(' ').length > CUE_LIMITS.chars || w.endSec - words[first]!.startSec > CUE_LIMITS.seconds;
    if (shown.length > 0 && full) close(i - 1);
    if (shown.length === 0) first = i;
    shown.push(word);
    if (written[i]!.endsSentence) close(i);
  });
  close(words.length - 1);
  return cues;
}

/** "HH:MM:SS.mmm" (WebVTT) or "HH:MM:SS,mmm" (SubRip). */
function timestamp(seconds: number, separator: '.' | ','): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(Math.floor(ms / 3_600_000))}:${two(Math.floor(ms / 60_000) % 60)}:${two(Math.floor(ms / 1000) % 60)}${separator}${String(ms % 1000).padStart(3, '0')}`;
}

/** The cues as a WebVTT or SubRip file. */
export function formatCaptions(cues: readonly Cue[], format: CaptionFormat): string {
  if (format === 'srt') return cues.map((c, i) => `${i + 1}\n${timestamp(c.start, ',')} --> ${timestamp(c.end, ',')}\n${c.text}\n`).join('\n');
  const escape = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `WEBVTT\n\n${cues.map((c) => `${timestamp(c.start, '.')} --> ${timestamp(c.end, '.')}\n${escape(c.text)}\n`).join('\n')}`;
}

/**
 * The captions of a job. Throws JOB_NOT_READY / JOB_FAILED / JOB_CANCELLED (409) unless it has
 * completed, and JOB_CAPTIONS_UNAVAILABLE (409) when it has no word timings.
 */
export function jobCaptions(job: Job, format: CaptionFormat): string {
  requireCompleted(job, 'captions');
  const words = job.result?.words ?? [];
  if (words.length === 0) throw new TtsError('JOB_CAPTIONS_UNAVAILABLE', `Job ${job.jobId} has no word timings (engine ${job.result?.engine || 'unknown'}), so it has no captions.`);
  return formatCaptions(cuesOf(words, job.spec?.speech?.text ?? ''), format);
}
