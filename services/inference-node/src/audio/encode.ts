/**
 * Streaming audio encoders. wav and pcm are written in JS; mp3, opus (Ogg), aac (ADTS) and flac stream
 * through one ffmpeg process per encoder: s16le in on stdin, the container out on stdout.
 */
import type { Writable } from 'node:stream';
import { TtsError } from '@tts/common';
import { contentTypeOf, isAudioFormat, isSampleRateSupported, nearestSupportedRate, type AudioFormat } from '@tts/common/audio';
import { FFMPEG, FFMPEG_QUIET, MediaProcess, cancelledError } from './media-process.js';
import { encodePcm16le, type PcmAudio } from './pcm.js';
import { resample } from './resample.js';
import { encodeWav, wavHeader } from './wav.js';

/** A streaming encoder: float samples in, container bytes out. */
export interface AudioEncoder {
  readonly format: AudioFormat;
  /** Rate of the samples `write` takes and of the encoded audio (Hz). */
  readonly sampleRate: number;
  /** MIME type of the bytes (see `contentTypeOf`). */
  readonly contentType: string;
  /** Feeds float samples at `sampleRate`; resolves when accepted (backpressure). */
  write(samples: Float32Array): Promise<void>;
  /** No more input; the iterator ends after the last bytes. Resolves once all input is handed to the encoder. */
  end(): Promise<void>;
  /** Stops at once (kills ffmpeg); pending writes and the iterator reject with TTS_CANCELLED. */
  abort(): void;
  /** Encoded bytes as they are produced. Single consumer; leaving the loop early aborts the encoder. */
  [Symbol.asyncIterator](): AsyncIterator<Buffer>;
}

/** Options of `createEncoder`. */
export interface EncoderOptions {
  /** Output goes to a live stream: wav gets the streaming header (sizes 0xFFFFFFFF) and Ogg pages are short. @default false */
  readonly streaming?: boolean;
  /** Bit rate for mp3/opus/aac (ignored for wav/pcm/flac). @default per format and rate, see `defaultBitrateKbps` */
  readonly bitrateKbps?: number;
  /** Aborting it aborts the encoder. */
  readonly signal?: AbortSignal;
}

/** Encoded bytes queued for the consumer before the encoder stops reading ffmpeg (and writes wait). */
const OUTPUT_HIGH_WATER_BYTES = 1 << 20;
/** Ogg page length for streaming opus (µs). ffmpeg's Ogg muxer holds the last two pages back, so this bounds the audio held (~120 ms) against page headers (about 4 kbit/s, vs 0.6 kbit/s with the 1 s default). */
const STREAMING_OGG_PAGE_US = 60_000;
/** Chunk size `encodeAudio` feeds an encoder with (samples). */
const ONE_SHOT_CHUNK = 1 << 16;

/** Bit rate used when none is given: generous for speech at each codec's rate class (kbit/s). */
export function defaultBitrateKbps(format: AudioFormat, sampleRate: number): number {
  switch (format) {
    case 'mp3':
      return sampleRate >= 32000 ? 128 : sampleRate >= 16000 ? 96 : 48;
    case 'aac':
      return sampleRate >= 32000 ? 128 : sampleRate >= 16000 ? 96 : 32;
    case 'opus':
      return sampleRate >= 24000 ? 64 : 32;
    default:
      return 0;
  }
}

/**
 * Creates a streaming encoder at `sampleRate` (which must be a rate the format takes, see
 * `outputSampleRate`, else TtsError TTS_SAMPLE_RATE_INVALID). `streaming` true: wav gets the streaming
 * header. Encoder failures reject the iterator with AUDIO_ENCODING_FAILED (ffmpeg's stderr is in `cause`,
 * for logs, never shown to clients).
 */
export function createEncoder(format: AudioFormat, sampleRate: number, options: EncoderOptions = {}): AudioEncoder {
  if (!isAudioFormat(format)) throw new TtsError('TTS_FORMAT_UNSUPPORTED', `The audio format '${String(format)}' is not supported.`);
  if (!isSampleRateSupported(format, sampleRate)) throw new TtsError('TTS_SAMPLE_RATE_INVALID', `The sample rate ${String(sampleRate)} is not supported for ${format}.`);
  const { bitrateKbps } = options;
  if (bitrateKbps !== undefined && (!Number.isFinite(bitrateKbps) || bitrateKbps <= 0)) throw new RangeError(`bitrateKbps must be a positive number, got ${String(bitrateKbps)}`);
  return format === 'wav' || format === 'pcm' ? new JsEncoder(format, sampleRate, options) : new FfmpegEncoder(format, sampleRate, options);
}

/**
 * One-shot: encodes a whole clip to a whole file (wav has exact sizes). The clip is encoded at its own
 * rate when the format takes it, else resampled to the nearest rate the format takes (e.g. 22050 Hz → 24000 Hz for opus).
 */
export async function encodeAudio(audio: PcmAudio, format: AudioFormat, signal?: AbortSignal): Promise<Buffer> {
  if (signal?.aborted === true) throw cancelledError();
  const rate = isSampleRateSupported(format, audio.sampleRate) ? audio.sampleRate : nearestSupportedRate(format, audio.sampleRate);
  const input = resample(audio, rate);
  if (format === 'wav') return encodeWav(input);
  if (format === 'pcm') return encodePcm16le(input.samples);
  const encoder = createEncoder(format, rate, { streaming: false, signal });
  const feed = (async () => {
    for (let at = 0; at < input.samples.length; at += ONE_SHOT_CHUNK) await encoder.write(input.samples.subarray(at, at + ONE_SHOT_CHUNK));
    await encoder.end();
  })();
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of encoder) chunks.push(chunk);
  } finally {
    encoder.abort(); // no-op when finished; stops ffmpeg when the loop failed
    await feed.catch(() => undefined); // its failure is the iterator's failure, already thrown
  }
  return Buffer.concat(chunks);
}

/** Single-consumer byte queue with a high-water mark, the encoders' output side. */
class ByteQueue {
  private readonly chunks: Buffer[] = [];
  private queued = 0;
  private closed = false;
  private error: Error | undefined;
  private reader: { resolve(result: IteratorResult<Buffer>): void; reject(error: Error): void } | undefined;
  private drainListeners: (() => void)[] = [];

  constructor(private readonly highWaterMark: number) {}

  /** True when the consumer is behind by at least the high-water mark. */
  get isFull(): boolean {
    return this.queued >= this.highWaterMark;
  }

  push(chunk: Buffer): void {
    if (this.closed || this.error !== undefined || chunk.length === 0) return;
    if (this.reader !== undefined) {
      const { resolve } = this.reader;
      this.reader = undefined;
      resolve({ done: false, value: chunk });
      return;
    }
    this.chunks.push(chunk);
    this.queued += chunk.length;
  }

  /** No more bytes: the consumer gets the queued ones, then `done`. */
  close(): void {
    if (this.closed || this.error !== undefined) return;
    this.closed = true;
    if (this.reader !== undefined && this.chunks.length === 0) {
      const { resolve } = this.reader;
      this.reader = undefined;
      resolve({ done: true, value: undefined });
    }
    this.notifyDrained();
  }

  /** Drops queued bytes; the consumer's next (or pending) read rejects with `error`. */
  fail(error: Error): void {
    if (this.error !== undefined) return;
    this.error = error;
    this.chunks.length = 0;
    this.queued = 0;
    if (this.reader !== undefined) {
      const { reject } = this.reader;
      this.reader = undefined;
      reject(error);
    }
    this.notifyDrained();
  }

  next(): Promise<IteratorResult<Buffer>> {
    if (this.error !== undefined) return Promise.reject(this.error);
    const chunk = this.chunks.shift();
    if (chunk !== undefined) {
      this.queued -= chunk.length;
      if (this.queued < this.highWaterMark) this.notifyDrained();
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.closed) return Promise.resolve({ done: true, value: undefined });
    if (this.reader !== undefined) return Promise.reject(new Error('AudioEncoder supports one pending read at a time'));
    return new Promise((resolve, reject) => {
      this.reader = { resolve, reject };
    });
  }

  /** Calls `listener` once the queue is below the high-water mark (at once if it is). */
  onceDrained(listener: () => void): void {
    if (!this.isFull) listener();
    else this.drainListeners.push(listener);
  }

  private notifyDrained(): void {
    const listeners = this.drainListeners;
    this.drainListeners = [];
    for (const listener of listeners) listener();
  }
}

type EncoderState = 'open' | 'ended' | 'finished' | 'failed' | 'aborted';

/** Shared life cycle: state, abort (also by signal), waiters that fail with the encoder. */
abstract class EncoderBase implements AudioEncoder {
  readonly contentType: string;
  protected readonly queue = new ByteQueue(OUTPUT_HIGH_WATER_BYTES);
  protected state: EncoderState = 'open';
  private failure: Error | undefined;
  private ending: Promise<void> | undefined;
  private readonly waiters = new Set<(error: Error) => void>();
  private readonly signal: AbortSignal | undefined;
  private readonly onAbortSignal = (): void => this.abort();

  constructor(
    readonly format: AudioFormat,
    readonly sampleRate: number,
    signal: AbortSignal | undefined,
  ) {
    this.contentType = contentTypeOf(format);
    this.signal = signal;
    signal?.addEventListener('abort', this.onAbortSignal, { once: true });
  }

  abstract write(samples: Float32Array): Promise<void>;

  end(): Promise<void> {
    this.ending ??= this.endInput();
    return this.ending;
  }

  /** Closes the input: called once, by the first `end()`. */
  protected abstract endInput(): Promise<void>;

  /** Releases the encoder's resources at once (kills the process). */
  protected abstract stop(): void;

  abort(): void {
    if (this.state === 'finished' || this.state === 'failed' || this.state === 'aborted') return;
    this.state = 'aborted';
    this.stop();
    this.settle(cancelledError());
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return {
      next: () => this.queue.next(),
      return: (): Promise<IteratorResult<Buffer>> => {
        this.abort();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  /** Throws unless `write`/`end` may be called now. */
  protected assertOpen(): void {
    if (this.state === 'open') return;
    if (this.state === 'aborted') throw cancelledError();
    if (this.state === 'failed' && this.failure !== undefined) throw this.failure;
    throw new Error(`AudioEncoder: ${this.state === 'ended' ? 'write after end()' : 'write or end after the encoder finished'}`);
  }

  /** All bytes are out: the iterator ends after the queued ones. */
  protected finish(): void {
    if (this.state !== 'open' && this.state !== 'ended') return;
    this.state = 'finished';
    this.queue.close();
    this.signal?.removeEventListener('abort', this.onAbortSignal);
  }

  /** The encoder failed: waiters and the iterator reject with `error`. */
  protected fail(error: Error): void {
    if (this.state === 'finished' || this.state === 'failed' || this.state === 'aborted') return;
    this.state = 'failed';
    this.failure = error;
    this.stop();
    this.settle(error);
  }

  /** A promise that `setup` resolves by calling `done`, or that rejects when the encoder fails or aborts first. */
  protected wait(setup: (done: () => void) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      this.waiters.add(onError);
      setup(() => {
        if (this.waiters.delete(onError)) resolve();
      });
    });
  }

  private settle(error: Error): void {
    this.queue.fail(error);
    for (const reject of this.waiters) reject(error);
    this.waiters.clear();
    this.signal?.removeEventListener('abort', this.onAbortSignal);
  }
}

/** wav/pcm written in JS: 16-bit little-endian mono. */
class JsEncoder extends EncoderBase {
  /** Whole-file wav keeps the data until `end` to write exact sizes. */
  private readonly held: Buffer[] | undefined;
  private heldBytes = 0;

  constructor(format: 'wav' | 'pcm', sampleRate: number, options: EncoderOptions) {
    super(format, sampleRate, options.signal);
    const streaming = options.streaming ?? false;
    this.held = format === 'wav' && !streaming ? [] : undefined;
    if (options.signal?.aborted === true) this.abort();
    else if (format === 'wav' && streaming) this.queue.push(wavHeader(sampleRate));
  }

  async write(samples: Float32Array): Promise<void> {
    this.assertOpen();
    const bytes = encodePcm16le(samples);
    if (this.held !== undefined) {
      this.held.push(bytes);
      this.heldBytes += bytes.length;
      return;
    }
    this.queue.push(bytes);
    if (this.queue.isFull) await this.wait((done) => this.queue.onceDrained(done));
  }

  protected async endInput(): Promise<void> {
    this.assertOpen();
    this.state = 'ended';
    if (this.held !== undefined) {
      let header: Buffer;
      try {
        header = wavHeader(this.sampleRate, this.heldBytes);
      } catch (error) {
        const failure = new TtsError('AUDIO_ENCODING_FAILED', undefined, { cause: error });
        this.fail(failure);
        throw failure;
      }
      this.queue.push(Buffer.concat([header, ...this.held]));
      this.held.length = 0;
    }
    this.finish();
  }

  protected stop(): void {
    this.held?.splice(0);
  }
}

/** mp3/opus/aac/flac through one ffmpeg process. */
class FfmpegEncoder extends EncoderBase {
  private readonly proc: MediaProcess | undefined;

  constructor(format: 'mp3' | 'opus' | 'aac' | 'flac', sampleRate: number, options: EncoderOptions) {
    super(format, sampleRate, options.signal);
    if (options.signal?.aborted === true) {
      this.abort();
      return;
    }
    const bitrate = options.bitrateKbps ?? defaultBitrateKbps(format, sampleRate);
    const proc = new MediaProcess(FFMPEG, ffmpegEncoderArgs(format, sampleRate, bitrate, options.streaming ?? false));
    this.proc = proc;
    const stdout = proc.child.stdout;
    stdout.on('data', (chunk: Buffer) => {
      this.queue.push(chunk);
      if (this.queue.isFull && !stdout.isPaused()) {
        stdout.pause();
        this.queue.onceDrained(() => stdout.resume());
      }
    });
    void proc.exited.then((exit) => {
      if (exit.code === 0 && this.state === 'ended') this.finish();
      else this.fail(new TtsError('AUDIO_ENCODING_FAILED', undefined, { cause: proc.failure(exit) }));
    });
  }

  async write(samples: Float32Array): Promise<void> {
    const stdin = this.openInput();
    if (samples.length === 0) return;
    if (!stdin.write(encodePcm16le(samples))) await this.wait((done) => stdin.once('drain', done));
  }

  protected async endInput(): Promise<void> {
    const stdin = this.openInput();
    this.state = 'ended';
    await this.wait((done) => {
      stdin.once('finish', done);
      stdin.end();
    });
  }

  protected stop(): void {
    this.proc?.kill();
  }

  /** ffmpeg's stdin, after checking that input is still accepted. */
  private openInput(): Writable {
    this.assertOpen();
    if (this.proc === undefined) throw cancelledError(); // only an encoder created aborted has no process
    return this.proc.child.stdin;
  }
}

/** ffmpeg arguments: raw s16le mono at `sampleRate` on stdin (no probing), `format` on stdout, packets flushed as made. */
function ffmpegEncoderArgs(format: 'mp3' | 'opus' | 'aac' | 'flac', sampleRate: number, bitrateKbps: number, streaming: boolean): string[] {
  const input = ['-probesize', '32', '-analyzeduration', '0', '-f', 's16le', '-ar', String(sampleRate), '-ac', '1', '-i', 'pipe:0'];
  const bitrate = ['-b:a', `${bitrateKbps}k`];
  const codec = {
    mp3: ['-c:a', 'libmp3lame', ...bitrate, '-f', 'mp3', '-id3v2_version', '0', '-write_xing', '0'],
    opus: ['-c:a', 'libopus', ...bitrate, '-f', 'ogg', ...(streaming ? ['-page_duration', String(STREAMING_OGG_PAGE_US)] : [])],
    aac: ['-c:a', 'aac', ...bitrate, '-f', 'adts'],
    flac: ['-c:a', 'flac', '-f', 'flac'],
  }[format];
  return [...FFMPEG_QUIET, ...input, '-map_metadata', '-1', ...codec, '-flush_packets', '1', 'pipe:1'];
}
