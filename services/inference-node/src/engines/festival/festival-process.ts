/**
 * What every warm festival process offers the engine, whichever way it is spoken to (`pipe` or
 * `server` transport), and the Scheme both run to synthesize, so both give the same audio.
 */
import type { PoolSlot } from '../workers/slot-pool.js';
import type { WordTiming } from '../engine.js';

/** Options of one warm festival process. */
export interface FestivalProcessOptions {
  /** festival executable. */
  readonly binary: string;
  /** Festival voice name, e.g. "cmu_us_slt_arctic_hts" (loaded with `(voice_<name>)`). */
  readonly voice: string;
  /** Private (0700) directory for the process's files (init file, waves); the engine removes it. */
  readonly workDir: string;
  /** Milliseconds the process may take to start and load its voice. */
  readonly startTimeoutMs: number;
  /** Milliseconds one synthesis may take before the process is considered hung and replaced. */
  readonly requestTimeoutMs: number;
}

/** Synthesized audio. */
export interface FestivalAudio {
  readonly samples: Float32Array;
  readonly sampleRate: number;
  /** The words' timings from festival's segments (see wordTimings). */
  readonly words: readonly WordTiming[];
}

/** One warm festival process with its voice loaded; synthesizes one text at a time. */
export interface FestivalProcess extends PoolSlot {
  /** Process id of the festival process (its process group id too). */
  readonly pid: number;
  /** Output rate of the voice, known after the warm-up synthesis. */
  readonly sampleRate: number;
  /** Synthesizes `text` at `rate` (1 = normal). */
  synthesize(text: string, rate: number): Promise<FestivalAudio>;
}

/**
 * Scheme that loads `voice` and defines `(tts_platform_synth text rate)`, returning the synthesized
 * utterance. Speed: HTS voices take hts_engine's frame-rate factor "-r" (Duration_Stretch has no
 * effect on them); other voices take Duration_Stretch. `Utterance` does not evaluate its
 * arguments, hence `eval`.
 */
export function synthDefinition(voice: string): string {
  return [
    `(voice_${voice})`,
    '(set! tts_platform_hts_params hts_engine_params)',
    '(define (tts_platform_synth text rate)',
    '  (if (string-equal (Param.get \'Synth_Method) "HTS")',
    '      (set! hts_engine_params (append tts_platform_hts_params (list (list "-r" rate))))',
    "      (Parameter.set 'Duration_Stretch (/ 1 rate)))",
    "  (utt.synth (eval (list 'Utterance 'Text text))))",
    // One line per word: the end of the segment before its first segment, the end of its last
    // segment (seconds of the wave), its token's id and the token as written (to the line's end).
    // A word without segments gets "- -" for its times: festival splits "man's" into the words
    // "man" and "'s" and gives the "z" to "man", leaving "'s" no syllable, whose segment features
    // then read 0 (its token had ended at 0 s, before its start).
    '(define (tts_platform_save_words utt file)',
    '  (let ((fd (fopen file "w")))',
    '    (mapcar (lambda (w)',
    "              (let ((syl (item.relation.daughter1 w 'SylStructure)))",
    "                (if (and syl (item.relation.daughter1 syl 'SylStructure))",
    "                    (format fd \"%f %f \" (item.feat w \"R:SylStructure.daughter1.daughter1.R:Segment.p.end\") (item.feat w \"R:SylStructure.daughtern.daughtern.R:Segment.end\"))",
    "                    (format fd \"- - \"))",
    "                (format fd \"%s %s\\n\" (item.feat w \"R:Token.parent.id\") (item.feat w \"R:Token.parent.name\"))))",
    "            (utt.relation.items utt 'Word))",
    '    (fclose fd)))',
  ].join('\n');
}

/**
 * The words of tts_platform_save_words's lines, merged per token so a token festival read as
 * several words ("1999": nineteen ninety nine) is one entry named as written. A word without
 * segments ("- -") adds nothing to its token's span; a token with none at all gets a zero-length
 * timing at the previous token's end, so every token keeps its place in order.
 */
export function wordTimings(lines: string): WordTiming[] {
  const words: WordTiming[] = [];
  let lastToken: string | undefined;
  /** Whether the last entry has a span of its own (not the zero-length placeholder). */
  let lastTimed = false;
  for (const line of lines.split('\n')) {
    const m = /^(\S+) (\S+) (\S+) (.*)$/.exec(line);
    if (!m) continue;
    const [token, word] = [m[3]!, m[4]!];
    const timed = m[1] !== '-' && m[2] !== '-';
    const [start, end] = timed ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
    if (timed && (!Number.isFinite(start) || !Number.isFinite(end))) continue;
    const previous = words[words.length - 1];
    if (previous !== undefined && token === lastToken) {
      if (timed) words[words.length - 1] = { word, start: lastTimed ? previous.start : start, end };
      lastTimed ||= timed;
      continue;
    }
    const at = previous?.end ?? 0;
    words.push(timed ? { word, start, end } : { word, start: at, end: at });
    lastToken = token;
    lastTimed = timed;
  }
  return words;
}
