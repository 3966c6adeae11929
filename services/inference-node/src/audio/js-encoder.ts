/**
 * The encoders written in JS: wav and pcm (16-bit little-endian mono, streaming or whole-file wav)
 * and the headerless G.711 formats (ulaw, alaw: one byte per sample).
 */
import { TtsError } from '@tts/common';
import { EncoderBase, type EncoderOptions } from './encoder-base.js';
import { encodeG711 } from './g711.js';
import { encodePcm16le } from './pcm.js';
import { wavHeader } from './wav.js';

/** The formats `JsEncoder` writes. */
export type JsFormat = 'wav' | 'pcm' | 'ulaw' | 'alaw';

/** True when `format` is written in JS (no codec library, no ffmpeg). */
export function isJsFormat(format: string): format is JsFormat {
  return format === 'wav' || format === 'pcm' || format === 'ulaw' || format === 'alaw';
}

/** The bytes of `samples` in a headerless format (pcm: s16le; ulaw/alaw: G.711). */
export function rawBytesOf(format: Exclude<JsFormat, 'wav'>, samples: Float32Array): Buffer {
  return format === 'pcm' ? encodePcm16le(samples) : encodeG711(format, samples);
}

/** wav, pcm, ulaw and alaw written in JS. */
export class JsEncoder extends EncoderBase {
  /** Whole-file wav keeps the data until `end` to write exact sizes. */
  private readonly held: Buffer[] | undefined;
  private heldBytes = 0;

  constructor(format: JsFormat, sampleRate: number, options: EncoderOptions) {
    super(format, sampleRate, options.signal);
    const streaming = options.streaming ?? false;
    this.held = format === 'wav' && !streaming ? [] : undefined;
    if (options.signal?.aborted === true) this.abort();
    else if (format === 'wav' && streaming) this.queue.push(wavHeader(sampleRate));
  }

  async write(samples: Float32Array): Promise<void> {
    this.assertOpen();
    const bytes = this.format === 'wav' ? encodePcm16le(samples) : rawBytesOf(this.format as Exclude<JsFormat, 'wav'>, samples);
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
