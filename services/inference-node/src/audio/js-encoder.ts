/** The wav and pcm encoders, written in JS: 16-bit little-endian mono, streaming or whole-file wav. */
import { TtsError } from '@tts/common';
import { EncoderBase, type EncoderOptions } from './encoder-base.js';
import { encodePcm16le } from './pcm.js';
import { wavHeader } from './wav.js';

/** wav/pcm written in JS: 16-bit little-endian mono. */
export class JsEncoder extends EncoderBase {
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
