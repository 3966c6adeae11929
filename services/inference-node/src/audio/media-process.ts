/**
 * One ffmpeg/ffprobe child process with piped stdio: bounded stderr capture, kill, and a settled exit
 * promise. Internal to the audio layer; not exported from the index.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { TtsError } from '@tts/common';
import { decodeFloat32le, encodeFloat32le, type PcmAudio } from './pcm.js';

/** ffmpeg binary, looked up on PATH (Debian's build: libmp3lame, libopus, native aac, flac). */
export const FFMPEG = 'ffmpeg';
/** ffprobe binary, looked up on PATH. */
export const FFPROBE = 'ffprobe';

/** Flags every ffmpeg run starts with: quiet except errors, no keyboard interaction. */
export const FFMPEG_QUIET = ['-hide_banner', '-nostdin', '-loglevel', 'error'] as const;

/** Last bytes of stderr kept for the logs. */
const STDERR_TAIL_BYTES = 8192;

/** How a child process ended. */
export interface ProcessExit {
  /** Exit code, or null when ended by a signal or never started. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when the process could not be started (e.g. ENOENT). */
  readonly spawnError: Error | undefined;
}

/** Thrown (as a TtsError `cause`) when ffmpeg/ffprobe fails; carries stderr for the logs, never for clients. */
export class MediaProcessError extends Error {
  override readonly name = 'MediaProcessError';
  constructor(
    readonly command: string,
    readonly exit: ProcessExit,
    /** Tail of the process's stderr. */
    readonly stderr: string,
  ) {
    super(`${command} ${exit.spawnError !== undefined ? `could not start: ${exit.spawnError.message}` : `exited with ${exit.signal ?? `code ${String(exit.code)}`}`}${stderr === '' ? '' : `: ${stderr.trim()}`}`);
  }
}

/** A running ffmpeg/ffprobe process. */
export class MediaProcess {
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Settles (never rejects) once the process has exited and its stdio has closed. */
  readonly exited: Promise<ProcessExit>;
  private stderrTail = '';

  constructor(readonly command: string, args: readonly string[]) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_BYTES);
    });
    // EPIPE when the process dies before reading all input: the exit status reports the failure.
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      // 'error' without a pid means the process never started; otherwise 'close' follows and reports.
      this.child.on('error', (error) => {
        if (this.child.pid === undefined) resolve({ code: null, signal: null, spawnError: error });
      });
      this.child.once('close', (code, signal) => resolve({ code, signal, spawnError: undefined }));
    });
  }

  /** Tail of stderr so far. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** True once the process has exited. */
  get hasExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Kills the process at once (SIGKILL); a no-op once it has exited. */
  kill(): void {
    if (this.child.pid !== undefined && !this.hasExited) this.child.kill('SIGKILL');
  }

  /** The error describing a failed exit. */
  failure(exit: ProcessExit): MediaProcessError {
    return new MediaProcessError(this.command, exit, this.stderrTail);
  }
}

/** True when `signal` has aborted (a call, so checks after an `await` are not narrowed away). */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** The error an aborted operation rejects with. */
export function cancelledError(): TtsError {
  return new TtsError('TTS_CANCELLED');
}

/** Bounds on what `runToBuffer` keeps of a process's output. */
export interface OutputLimits {
  /** Most stdout bytes kept; past them the process is killed and the call fails. @default no bound */
  readonly maxOutputBytes?: number;
  /** The error thrown past `maxOutputBytes`. @default a MediaProcessError */
  readonly overflowError?: () => Error;
}

/**
 * Runs a process that reads all of `input` on stdin and writes its whole result to stdout, and returns
 * stdout (at most `limits.maxOutputBytes`). Rejects with TTS_CANCELLED when `signal` aborts (the
 * process is killed), and with MediaProcessError when it fails.
 */
export async function runToBuffer(command: string, args: readonly string[], input: Uint8Array, signal?: AbortSignal, limits: OutputLimits = {}): Promise<Buffer> {
  if (signal?.aborted === true) throw cancelledError();
  const proc = new MediaProcess(command, args);
  const chunks: Buffer[] = [];
  const maxBytes = limits.maxOutputBytes ?? Infinity;
  let bytes = 0;
  let overflowed = false;
  proc.child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes) {
      // Nothing more is kept: the process is stopped and the call fails with the caller's error.
      overflowed = true;
      chunks.length = 0;
      proc.kill();
      return;
    }
    chunks.push(chunk);
  });
  const onAbort = (): void => proc.kill();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    proc.child.stdin.end(input);
    const exit = await proc.exited;
    if (isAborted(signal)) throw cancelledError();
    if (overflowed) throw limits.overflowError?.() ?? new MediaProcessError(command, exit, `wrote more than ${maxBytes} bytes`);
    if (exit.code !== 0) throw proc.failure(exit);
    return Buffer.concat(chunks);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    proc.kill();
  }
}

/**
 * `audio` through the ffmpeg audio filter chain `filter` (mono 32-bit float on stdin and stdout, no
 * temporary file; same rate). Rejects with TTS_CANCELLED when `signal` aborts, and with
 * AUDIO_PROCESSING_FAILED (`failure` as its message, ffmpeg's stderr in `cause`) when ffmpeg fails.
 */
export async function filterAudio(audio: PcmAudio, filter: string, signal?: AbortSignal, failure?: string): Promise<PcmAudio> {
  const rate = String(audio.sampleRate);
  const args = [...FFMPEG_QUIET, '-f', 'f32le', '-ar', rate, '-ac', '1', '-i', 'pipe:0', '-af', filter, '-f', 'f32le', '-ar', rate, '-ac', '1', 'pipe:1'];
  let out: Buffer;
  try {
    out = await runToBuffer(FFMPEG, args, encodeFloat32le(audio.samples), signal);
  } catch (error) {
    if (error instanceof TtsError) throw error;
    throw new TtsError('AUDIO_PROCESSING_FAILED', failure, { cause: error });
  }
  return { samples: decodeFloat32le(out), sampleRate: audio.sampleRate };
}
