/**
 * What every warm festival process offers the engine, whichever way it is spoken to (`pipe` or
 * `server` transport): the Scheme both run to synthesize, so both give the same audio, and the
 * handling of its start, time-outs, death and disposal (`WarmFestivalProcess`), so both fail alike.
 */
import type { ChildProcess } from 'node:child_process';
import { TtsError } from '@tts/common';
import type { PoolSlot } from '../workers/slot-pool.js';
import type { WordTiming } from '../engine.js';
import { forgetGroup, groupGone, killGroup, onExit } from './process-group.js';

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

/**
 * A warm festival process as both transports run it: a subclass speaks its transport (starts the
 * process, hands `warmUp` its handshake, waits for replies with `awaitReply`, calls `wake` when
 * replies arrive); this class fails it as a whole. A failure (the process exited, a reply did not
 * come in time, the transport broke) rejects the waiting request, kills the process group and,
 * once the process had started, tells the pool, which starts another.
 */
export abstract class WarmFestivalProcess implements FestivalProcess {
  /** The failure that ended the process; null while it lives. */
  protected failure: TtsError | null = null;
  /** Set once the process has started; a death before that is reported by `warmUp` rejecting. */
  protected started = false;
  private disposed = false;
  private waiter: (() => void) | null = null;
  private stderrTail = '';
  private readonly exited: Promise<void>;
  sampleRate = 0;

  /** `what` names the process in error messages ("process", "server process"). */
  protected constructor(
    protected readonly child: ChildProcess,
    protected readonly options: FestivalProcessOptions,
    private readonly onDeath: (cause: unknown) => void,
    private readonly what: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.stdout?.resume();
    onExit(child, (code, signal) => this.fail(new TtsError('TTS_ENGINE_FAILED', `festival: the ${what} exited (${signal ?? `code ${code}`})${this.stderrHint()}`)));
  }

  /** Process id of the festival process (its process group id too). */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  abstract synthesize(text: string, rate: number): Promise<FestivalAudio>;

  /**
   * Ends the start: `handshake` (the transport's, up to the voice check), then one synthesis that
   * warms the voice and tells its rate. On any failure the process is disposed of and the
   * rejection is TTS_ENGINE_UNAVAILABLE.
   */
  protected async warmUp(handshake: () => Promise<void>): Promise<void> {
    try {
      await handshake();
      this.sampleRate = (await this.synthesize('Ready.', 1)).sampleRate;
      this.started = true;
      if (this.failure) throw this.failure;
    } catch (err) {
      await this.dispose();
      if (err instanceof TtsError && err.code === 'TTS_ENGINE_UNAVAILABLE') throw err;
      throw new TtsError('TTS_ENGINE_UNAVAILABLE', `festival: the ${this.what} failed to start: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /**
   * Resolves to what `take` finds among the replies received so far (it looks again after each
   * `wake`); rejects when the process fails. A reply later than `timeoutMs` fails the process.
   */
  protected async awaitReply<T>(timeoutMs: number, take: () => T | undefined): Promise<T> {
    const timer = setTimeout(() => this.fail(new TtsError('TTS_ENGINE_FAILED', `festival: no reply within ${timeoutMs} ms; restarting the ${this.what}`)), timeoutMs);
    try {
      for (;;) {
        const found = take();
        if (found !== undefined) return found;
        if (this.failure) throw this.failure;
        await new Promise<void>((resolve) => (this.waiter = resolve));
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Replies arrived (or the process failed): the waiting `awaitReply` looks again. */
  protected wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** Keeps the end of what the process wrote on stderr, for error messages. */
  protected keepStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-2000);
  }

  /** The last stderr lines, as a suffix of an error message. */
  protected stderrHint(): string {
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return tail ? ` (stderr: ${tail})` : '';
  }

  /** Closes what the transport holds besides the process (the server's connection). */
  protected closeTransport(): void {}

  /** Marks the process failed (see the class comment). Returns the failure: the first one, when it had failed already. */
  protected fail(error: TtsError): TtsError {
    if (this.failure) return this.failure;
    this.failure = error;
    this.wake();
    this.closeTransport();
    if (this.child.pid !== undefined) killGroup(this.child.pid);
    if (this.started && !this.disposed) this.onDeath(error);
    return error;
  }

  /** Kills the process group and waits until every member is gone. */
  async dispose(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true;
      this.fail(new TtsError('TTS_ENGINE_UNAVAILABLE', `festival: the ${this.what} was stopped`));
    }
    if (this.child.exitCode === null && this.child.signalCode === null) await this.exited;
    // A child serving the server's connection dies with the group but is reaped by init, maybe later.
    if (this.child.pid !== undefined) await groupGone(this.child.pid, 2000);
    if (this.child.pid !== undefined) forgetGroup(this.child.pid);
  }
}
