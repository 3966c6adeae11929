/**
 * The in-process encoder of mp3, opus, flac and aac: float samples go to a codec library session (see
 * `native-codec.ts`) in chunks of at most 100 ms of audio, yielding to the event loop between chunks so
 * a long clip never holds the loop for more than one short native call. Which path each format takes
 * (in process, or ffmpeg when its library cannot be loaded) is decided once and logged once.
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

/** Longest stretch of audio one native call encodes (s): bounds how long the event loop is held. */
const CHUNK_SEC = 0.1;

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
  /** Samples encoded since the event loop last turned (a pending immediate resets it when it does). */
  private sinceTurn = 0;
  private turnWatched = false;

  constructor(format: NativeFormat, codec: NativeCodec, sampleRate: number, options: EncoderOptions & { readonly bitrateKbps: number }) {
    super(format, sampleRate, options.signal);
    this.streaming = options.streaming ?? false;
    this.chunkSamples = Math.max(1, Math.round(sampleRate * CHUNK_SEC));
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
    for (let at = 0; at < samples.length; ) {
      const piece = samples.subarray(at, at + this.chunkSamples);
      at += piece.length;
      if (this.sinceTurn > 0 && this.sinceTurn + piece.length > this.chunkSamples) {
        await yieldToEventLoop(); // at most CHUNK_SEC of audio per turn of the event loop
        session = this.openSession(); // aborted or failed meanwhile: throws
      }
      this.noteEncoded(piece.length);
      this.queue.push(this.call(() => session.encode(piece)));
      if (this.queue.isFull) await this.wait((done) => this.queue.onceDrained(done));
    }
    if (this.streaming) this.queue.push(this.call(() => this.openSession().flush()));
  }

  private noteEncoded(samples: number): void {
    this.sinceTurn += samples;
    if (this.turnWatched) return;
    this.turnWatched = true;
    setImmediate(() => {
      this.sinceTurn = 0;
      this.turnWatched = false;
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
