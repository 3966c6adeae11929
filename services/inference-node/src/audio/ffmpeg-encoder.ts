/**
 * Encoders that stream through one ffmpeg process each: s16le in on stdin, the container out on
 * stdout. mp3, opus, flac and aac run here only when asked for (`implementation: 'ffmpeg'`) or when
 * their codec library cannot be loaded.
 */
import type { Writable } from 'node:stream';
import { TtsError } from '@tts/common';
import { defaultBitrateKbps } from './bitrate.js';
import { EncoderBase, type EncoderOptions } from './encoder-base.js';
import { FFMPEG, FFMPEG_QUIET, MediaProcess, cancelledError } from './media-process.js';
import { encodePcm16le } from './pcm.js';
import { MP3_QUALITY } from './lame-codec.js';
import { OPUS_COMPLEXITY } from './opus-codec.js';

/** Ogg page length for streaming opus (µs). ffmpeg's Ogg muxer holds the last two pages back, so this bounds the audio held (~120 ms) against page headers (about 4 kbit/s, vs 0.6 kbit/s with the 1 s default). */
const STREAMING_OGG_PAGE_US = 60_000;

/** mp3/opus/aac/flac through one ffmpeg process. */
export class FfmpegEncoder extends EncoderBase {
  private readonly proc: MediaProcess | undefined;

  constructor(format: 'mp3' | 'opus' | 'aac' | 'flac', sampleRate: number, options: EncoderOptions) {
    super(format, sampleRate, options.signal);
    if (options.signal?.aborted === true) {
      this.abort();
      return;
    }
    const bitrate = options.bitrateKbps ?? defaultBitrateKbps(format, sampleRate);
    const args = ffmpegEncoderArgs(format, sampleRate, bitrate, options.streaming ?? false, { opus: options.opusComplexity ?? OPUS_COMPLEXITY, mp3: options.mp3Quality ?? MP3_QUALITY });
    const proc = new MediaProcess(FFMPEG, args);
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
function ffmpegEncoderArgs(format: 'mp3' | 'opus' | 'aac' | 'flac', sampleRate: number, bitrateKbps: number, streaming: boolean, level: { readonly opus: number; readonly mp3: number }): string[] {
  const input = ['-probesize', '32', '-analyzeduration', '0', '-f', 's16le', '-ar', String(sampleRate), '-ac', '1', '-i', 'pipe:0'];
  const bitrate = ['-b:a', `${bitrateKbps}k`];
  const codec = {
    // libmp3lame's compression_level is LAME's quality, the in-process encoder's (lame-codec.ts).
    mp3: ['-c:a', 'libmp3lame', ...bitrate, '-compression_level', String(level.mp3), '-f', 'mp3', '-id3v2_version', '0', '-write_xing', '0'],
    // The in-process encoder's complexity (opus-codec.ts).
    opus: ['-c:a', 'libopus', ...bitrate, '-compression_level', String(level.opus), '-f', 'ogg', ...(streaming ? ['-page_duration', String(STREAMING_OGG_PAGE_US)] : [])],
    aac: ['-c:a', 'aac', '-aac_coder', 'fast', ...bitrate, '-f', 'adts'], // the in-process encoder's coder (aac-codec.ts)
    flac: ['-c:a', 'flac', '-f', 'flac'],
  }[format];
  return [...FFMPEG_QUIET, ...input, '-map_metadata', '-1', ...codec, '-flush_packets', '1', 'pipe:1'];
}
