/**
 * The in-process encoder of mp3, opus, flac and aac: float samples go to a codec library session (see
 * `native-codec.ts`) in native calls of at most 100 ms of audio. The encoder holds the event loop for
 * at most a short budget of time (TURN_BUDGET_MS) before it yields, and it hands its output to the
 * consumer once per turn (the stream's first bytes at once), so a short clip is one or two chunks out,
 * not one per 100 ms. Which path each format takes (in process, or ffmpeg when its library cannot be
 * loaded) is decided once and logged once.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { TtsError, createLogger } from '@tts/common';
import { openAacCodec } from './aac-codec.js';
import { EncoderBase, type EncoderOptions } from './encoder-base.js';
import { openFlacCodec } from './flac-codec.js';
import { openLameCodec } from './lame-codec.js';
import { cancelledError } from './media-process.js';
import type { CodecSession, NativeCodec } from './native-codec.js';
import { openOggOpusCodec } from './opus-codec.js';

/** Formats a codec library can encode in process. */
export type NativeFormat = 'mp3' | 'opus' | 'flac' | 'aac';

/** Longest stretch of audio one native call encodes (s): bounds how long one call holds the event loop. */
const CHUNK_SEC = 0.1;
/**
 * Time the encoder may hold the event loop before it yields (ms), counted from its first native call
 * in the turn. Each yield also hands out the bytes of that turn as one chunk: with a yield and a chunk
 * per 100 ms of audio, a 1 s clip cost ten gRPC messages and HTTP writes more than a wav answer.
 */
export const TURN_BUDGET_MS = 2;

const LOADERS: Record<NativeFormat, () => NativeCodec> = { mp3: () => openLameCodec(), opus: () => openOggOpusCodec(), flac: () => openFlacCodec(), aac: () => openAacCodec() };
const codecs = new Map<NativeFormat, NativeCodec | undefined>();

/**
 * The codec library for `format`, loaded on first use; undefined when it cannot be loaded (the caller
 * falls back to ffmpeg). The outcome is logged once per format.
 */
export function nativeCodec(format: NativeFormat): NativeCodec | undefined {
  if (codecs.has(format)) return codecs.get(format);
  const log = createLogger('inference-node', { component: 'audio' });
  let codec: NativeCodec | undefined;
  try {
    codec = LOADERS[format]();
    log.info('audio encoder runs in process', { format, libraries: codec.libraries });
  } catch (err) {
    codec = undefined;
    log.warn('audio encoder falls back to one ffmpeg process per request: the codec library could not be loaded', { format, err });
  }
  codecs.set(format, codec);
  return codec;
}

/** mp3/opus/flac/aac encoded in this process by a codec library session. */
export class NativeEncoder extends EncoderBase {
  private session: CodecSession | undefined;
  private readonly streaming: boolean;
  private readonly chunkSamples: number;
  /** The last queued write or end: calls run one after the other. */
  private tail: Promise<void> = Promise.resolve();
  private readonly turnBudgetMs: number;
  /** When the encoder's first native call of this event-loop turn ran (a pending immediate resets it when the loop turns). */
  private turnStartedAt: number | undefined;
  /** Bytes have gone to the consumer (the first ones go at once, later ones once per turn). */
  private emitted = false;

  constructor(format: NativeFormat, codec: NativeCodec, sampleRate: number, options: EncoderOptions & { readonly bitrateKbps: number; readonly turnBudgetMs?: number }) {
    super(format, sampleRate, options.signal);
    this.streaming = options.streaming ?? false;
    this.chunkSamples = Math.max(1, Math.round(sampleRate * CHUNK_SEC));
    this.turnBudgetMs = options.turnBudgetMs ?? TURN_BUDGET_MS;
    if (options.signal?.aborted === true) {
      this.abort();
      return;
    }
    try {
      this.session = codec.open({
        sampleRate,
        bitrateKbps: options.bitrateKbps,
        streaming: this.streaming,
        ...(format === 'opus' && options.opusComplexity !== undefined ? { complexity: options.opusComplexity } : {}),
        ...(format === 'mp3' && options.mp3Quality !== undefined ? { quality: options.mp3Quality } : {}),
      });
    } catch (error) {
      this.fail(new TtsError('AUDIO_ENCODING_FAILED', undefined, { cause: error }));
    }
  }

  write(samples: Float32Array): Promise<void> {
    return this.serialize(() => this.encodeInput(samples));
  }

  protected endInput(): Promise<void> {
    return this.serialize(() => this.finishInput());
  }

  protected stop(): void {
    this.session?.close();
    this.session = undefined;
  }

  private serialize(task: () => Promise<void>): Promise<void> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async encodeInput(samples: Float32Array): Promise<void> {
    let session = this.openSession();
    let out: Buffer[] = [];
    for (let at = 0; at < samples.length; ) {
      if (this.turnStartedAt !== undefined && performance.now() - this.turnStartedAt >= this.turnBudgetMs) {
        out = this.handOut(out);
        await yieldToEventLoop();
        session = this.openSession(); // aborted or failed meanwhile: throws
        if (this.queue.isFull) await this.wait((done) => this.queue.onceDrained(done));
      }
      this.noteTurn();
      const piece = samples.subarray(at, at + this.chunkSamples);
      at += piece.length;
      const bytes = this.call(() => session.encode(piece));
      if (bytes.length > 0) out.push(bytes);
      if (!this.emitted) out = this.handOut(out); // the stream's first bytes go out at once
    }
    if (this.streaming) out.push(this.call(() => this.openSession().flush()));
    this.handOut(out);
    if (this.queue.isFull) await this.wait((done) => this.queue.onceDrained(done));
  }

  /** Queues `out` for the consumer as one chunk; returns a new empty list. */
  private handOut(out: Buffer[]): Buffer[] {
    const bytes = out.length === 1 ? out[0]! : Buffer.concat(out);
    if (bytes.length > 0) {
      this.queue.push(bytes);
      this.emitted = true;
    }
    return [];
  }

  private noteTurn(): void {
    if (this.turnStartedAt !== undefined) return;
    this.turnStartedAt = performance.now();
    setImmediate(() => {
      this.turnStartedAt = undefined;
    });
  }

  private async finishInput(): Promise<void> {
    const session = this.openSession();
    this.state = 'ended';
    const last = this.call(() => session.finish());
    this.stop();
    this.queue.push(last);
    this.finish();
  }

  /** The session, after checking that input is still accepted. */
  private openSession(): CodecSession {
    this.assertOpen();
    if (this.session === undefined) throw cancelledError(); // only an encoder created aborted has no session
    return this.session;
  }

  /** Runs a codec call; a throw fails the encoder with AUDIO_ENCODING_FAILED (the codec's error in `cause`). */
  private call(codecCall: () => Buffer): Buffer {
    try {
      return codecCall();
    } catch (error) {
      const failure = new TtsError('AUDIO_ENCODING_FAILED', undefined, { cause: error });
      this.fail(failure);
      throw failure;
    }
  }
}
