/**
 * The contract between the in-process encoder and a codec library binding (libmp3lame, libopus +
 * libogg, libFLAC, libavcodec's aac encoder): a codec opens sessions; a session encodes small chunks synchronously on the
 * calling thread and hands back the container bytes completed so far.
 */

/** Settings of one encoding session. */
export interface CodecSettings {
  /** Rate of the input samples and of the encoded audio (Hz); a rate the format takes. */
  readonly sampleRate: number;
  /** Bit rate of the lossy codecs (kbit/s); flac ignores it. */
  readonly bitrateKbps: number;
  /** Output goes to a live stream (Ogg: short pages). */
  readonly streaming: boolean;
  /** Encoder effort of codecs that have one (libopus: 0-10). @default the codec's own (OPUS_COMPLEXITY) */
  readonly complexity?: number;
  /** LAME's quality (libmp3lame: 0 best - 9 fastest). @default MP3_QUALITY */
  readonly quality?: number;
}

/** One encoding session; every call is synchronous and bounded by the size of its input. */
export interface CodecSession {
  /** Encodes `samples` (mono, [-1, 1]); returns the container bytes completed (may be empty). The first bytes include the header. */
  encode(samples: Float32Array): Buffer;
  /** Hands out what a live stream should get now that a write has ended (Ogg: the pending short page); may be empty. */
  flush(): Buffer;
  /** Encodes what is buffered and ends the stream; returns the last bytes (with the header when nothing came out before). */
  finish(): Buffer;
  /** Frees the native state; idempotent, and safe after `finish`. */
  close(): void;
}

/** A loaded codec library. */
export interface NativeCodec {
  /** The shared objects it loaded, for the logs. */
  readonly libraries: readonly string[];
  /** Opens a session; throws (an Error for the logs) when the library refuses the settings. */
  open(settings: CodecSettings): CodecSession;
}

/** Frees native state of sessions that were dropped without `close` (a safety net, not the normal path). */
export const nativeFinalizer = new FinalizationRegistry<() => void>((release) => release());
