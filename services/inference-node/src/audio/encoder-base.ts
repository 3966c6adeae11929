/**
 * What every streaming encoder shares: the `AudioEncoder` interface and its options, the output byte
 * queue with its high-water mark (backpressure), and the life cycle (open, ended, finished, failed,
 * aborted) with abort by signal. The concrete encoders (JS, in-process codec, ffmpeg) extend
 * `EncoderBase`.
 */
import { contentTypeOf, type AudioFormat } from '@tts/common/audio';
import { cancelledError } from './media-process.js';

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
  /** Stops at once (frees the codec or kills ffmpeg); pending writes and the iterator reject with TTS_CANCELLED. */
  abort(): void;
  /** Encoded bytes as they are produced. Single consumer; leaving the loop early aborts the encoder. */
  [Symbol.asyncIterator](): AsyncIterator<Buffer>;
}

/** Which implementation encodes mp3, opus, flac and aac (wav and pcm are always written in JS). */
export type EncoderImplementation = 'native' | 'ffmpeg';

/** Options of `createEncoder`. */
export interface EncoderOptions {
  /** Output goes to a live stream: wav gets the streaming header (sizes 0xFFFFFFFF) and Ogg pages are short. @default false */
  readonly streaming?: boolean;
  /** Bit rate for mp3/opus/aac (ignored for wav/pcm/flac). @default per format and rate, see `defaultBitrateKbps` */
  readonly bitrateKbps?: number;
  /** Aborting it aborts the encoder. */
  readonly signal?: AbortSignal;
  /**
   * 'native': mp3, opus, flac and aac are encoded in this process by libmp3lame, libopus + libogg,
   * libFLAC and libavcodec's aac encoder, falling back to one ffmpeg process per encoder when a
   * library cannot be loaded; 'ffmpeg': one ffmpeg process started for the encoder, for every format
   * (the former path, kept for comparisons and the encoder benchmark).
   * @default 'native'
   */
  readonly implementation?: EncoderImplementation;
  /** libopus complexity (0-10) of the in-process opus encoder. @default OPUS_COMPLEXITY (5) */
  readonly opusComplexity?: number;
  /** LAME quality (0 best - 9 fastest) of mp3, in process and through ffmpeg. @default MP3_QUALITY */
  readonly mp3Quality?: number;
}

/** The encoder settings the node's configuration chooses (TTS_AUDIO_ENCODERS, TTS_OPUS_COMPLEXITY, TTS_MP3_QUALITY). */
export type EncoderSettings = Pick<EncoderOptions, 'implementation' | 'opusComplexity' | 'mp3Quality'>;

/** Encoded bytes queued for the consumer before the encoder stops producing (and writes wait). */
const OUTPUT_HIGH_WATER_BYTES = 1 << 20;

/** Single-consumer byte queue with a high-water mark, the encoders' output side. */
export class ByteQueue {
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

/** Life-cycle state of an encoder. */
export type EncoderState = 'open' | 'ended' | 'finished' | 'failed' | 'aborted';

/** Shared life cycle: state, abort (also by signal), waiters that fail with the encoder. */
export abstract class EncoderBase implements AudioEncoder {
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

  /** Releases the encoder's resources at once (frees the codec, kills the process). */
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
