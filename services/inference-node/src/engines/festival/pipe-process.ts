/**
 * The `pipe` transport (the default): one warm `festival --pipe` process that reads Scheme on its
 * stdin. The voice is loaded once at start; each request saves its wave to a file of its own in
 * the engine's private (0700) directory and reports on stderr, and the engine reads and removes
 * the file. No socket, no password, no per-connection child: nothing holds the reply back (the
 * `server` transport loses up to ~40 ms per call to Nagle's algorithm and delayed ACKs), and
 * festival writes no temporary file of its own (its TMPDIR is the private directory all the same).
 *
 * Replies are lines `tts-platform-<nonce> done <id>` / `failed <id>` on stderr; the nonce is random
 * per process so nothing else festival prints can pass for one. A request that gets no reply in
 * `requestTimeoutMs` kills the process (the pool starts another).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TtsError } from '@tts/common';
import { WarmFestivalProcess, synthDefinition, wordTimings, type FestivalAudio, type FestivalProcessOptions } from './festival-process.js';
import { FESTIVAL_HEAP_CELLS, spawnGroup } from './process-group.js';
import { parseRiffWave, schemeString } from './protocol.js';

/** A reply line of the process. */
interface Reply {
  readonly kind: 'done' | 'failed' | 'voice';
  readonly value: string;
}

/** The Scheme the process runs first: the voice, and the entry point that answers on stderr. */
function initScheme(voice: string, nonce: string): string {
  return [
    synthDefinition(voice),
    // unwind-protect catches a failed synthesis or save: the reply is "failed", the process lives on.
    '(define (tts_platform_say id text rate file)',
    '  (unwind-protect',
    '    (begin',
    '      (set! tts_platform_utt (tts_platform_synth text rate))',
    "      (utt.save.wave tts_platform_utt file 'riff)",
    '      (tts_platform_save_words tts_platform_utt (string-append file ".words"))',
    `      (format stderr "tts-platform-${nonce} done %d\\n" id))`,
    `    (format stderr "tts-platform-${nonce} failed %d\\n" id))`,
    '  nil)',
    `(format stderr "tts-platform-${nonce} voice %l\\n" current-voice)`,
    '',
  ].join('\n');
}

/** One warm `festival --pipe` process. */
export class FestivalPipeProcess extends WarmFestivalProcess {
  private readonly replyPattern: RegExp;
  private readonly replies: Reply[] = [];
  private stderrLine = '';
  private nextId = 1;

  private constructor(child: ChildProcess, nonce: string, options: FestivalProcessOptions, onDeath: (cause: unknown) => void) {
    super(child, options, onDeath, 'process');
    this.replyPattern = new RegExp(`^tts-platform-${nonce} (done|failed|voice) (\\S*)$`);
    child.stderr?.on('data', (d: Buffer) => this.onStderr(d.toString('utf8')));
    child.stdin?.on('error', (err) => this.fail(new TtsError('TTS_ENGINE_FAILED', `festival: cannot write to the process: ${err.message}`, { cause: err })));
  }

  /** Starts a process, loads the voice, and warms it up with one synthesis. `onDeath` fires if it dies later. */
  static async start(options: FestivalProcessOptions, onDeath: (cause: unknown) => void): Promise<FestivalPipeProcess> {
    const child = await spawnGroup(options.binary, ['--heap', String(FESTIVAL_HEAP_CELLS), '--pipe'], ['pipe', 'pipe', 'pipe'], options.workDir);
    const nonce = randomBytes(8).toString('hex');
    const proc = new FestivalPipeProcess(child, nonce, options, onDeath);
    await proc.warmUp(async () => {
      child.stdin?.write(initScheme(options.voice, nonce));
      const loaded = await proc.reply(options.startTimeoutMs, 'voice');
      if (loaded !== options.voice) {
        throw new TtsError('TTS_ENGINE_UNAVAILABLE', `festival: voice ${options.voice} did not load (current voice: ${loaded || 'none'})${proc.stderrHint()}`);
      }
    });
    return proc;
  }

  /** Synthesizes `text` at `rate` (1 = normal). */
  async synthesize(text: string, rate: number): Promise<FestivalAudio> {
    if (this.failure) throw this.failure;
    const id = this.nextId++;
    const file = join(this.options.workDir, `utt-${this.pid}-${id}.wav`);
    try {
      this.child.stdin?.write(`(tts_platform_say ${id} ${schemeString(text)} ${rate.toFixed(4)} ${schemeString(file)})\n`);
      const outcome = await this.reply(this.started ? this.options.requestTimeoutMs : this.options.startTimeoutMs, 'done', String(id));
      if (outcome !== 'done') throw new TtsError('TTS_ENGINE_FAILED', `festival: the process could not synthesize this text${this.stderrHint()}`);
      const [wave, words] = await Promise.all([readFile(file), readFile(`${file}.words`, 'utf8')]);
      return { ...parseRiffWave(wave), words: wordTimings(words) };
    } finally {
      await Promise.all([rm(file, { force: true }), rm(`${file}.words`, { force: true })]);
    }
  }

  /**
   * Waits for the next reply: of `kind` 'voice' (resolves to the voice name), or the outcome of
   * request `id` (resolves to 'done' or 'failed'). A reply out of order is a broken process.
   */
  private reply(timeoutMs: number, kind: 'voice' | 'done', id?: string): Promise<string> {
    return this.awaitReply(timeoutMs, () => {
      const next = this.replies.shift();
      if (!next) return undefined;
      if (kind === 'voice' && next.kind === 'voice') return next.value;
      if (kind === 'done' && next.kind !== 'voice' && next.value === id) return next.kind;
      throw this.fail(new TtsError('TTS_ENGINE_FAILED', `festival: unexpected reply "${next.kind} ${next.value}"`));
    });
  }

  private onStderr(text: string): void {
    this.stderrLine += text;
    let newline = this.stderrLine.indexOf('\n');
    let woke = false;
    while (newline >= 0) {
      const line = this.stderrLine.slice(0, newline);
      this.stderrLine = this.stderrLine.slice(newline + 1);
      const m = this.replyPattern.exec(line);
      if (m) {
        this.replies.push({ kind: m[1] as Reply['kind'], value: m[2] ?? '' });
        woke = true;
      } else {
        this.keepStderr(`${line}\n`);
      }
      newline = this.stderrLine.indexOf('\n');
    }
    if (this.stderrLine.length > 64 * 1024) this.stderrLine = this.stderrLine.slice(-2000); // a runaway line
    if (woke) this.wake();
  }
}
