/**
 * flac through libFLAC (koffi): 16-bit mono at the input rate, compression level 5 (the flac tool's
 * and ffmpeg's default), written as a stream through a write callback. Without a seek callback libFLAC
 * cannot go back to fill in the STREAMINFO block, so, as with ffmpeg writing to a pipe before, it
 * declares the total sample count and the MD5 signature unknown (0); decoders read the frames to the
 * end (ffprobe's duration comes from the frames).
 */
import koffi, { type IKoffiRegisteredCallback } from 'koffi';
import type { CodecSession, CodecSettings, NativeCodec } from './native-codec.js';
import { nativeFinalizer } from './native-codec.js';
import { floatToInt16 } from './pcm.js';

/** The libFLAC shared object (Debian 12: libflac12). */
export const FLAC_LIBRARY = 'libFLAC.so.12';

const COMPRESSION_LEVEL = 5;
const INIT_STATUS_OK = 0;
const WRITE_STATUS_OK = 0;

/** Loads libFLAC (a soname or a path); throws when it cannot be loaded. */
export function openFlacCodec(library: string = FLAC_LIBRARY): NativeCodec {
  const lib = koffi.load(library);
  const encoderNew = lib.func('void *FLAC__stream_encoder_new()');
  const encoderDelete = lib.func('void FLAC__stream_encoder_delete(void *encoder)');
  const setUnsigned = (name: string): ((encoder: unknown, value: number) => number) => lib.func(`int ${name}(void *encoder, uint32_t value)`) as (encoder: unknown, value: number) => number;
  const setChannels = setUnsigned('FLAC__stream_encoder_set_channels');
  const setBitsPerSample = setUnsigned('FLAC__stream_encoder_set_bits_per_sample');
  const setSampleRate = setUnsigned('FLAC__stream_encoder_set_sample_rate');
  const setCompressionLevel = setUnsigned('FLAC__stream_encoder_set_compression_level');
  const WriteCallback = koffi.proto('int FLAC__StreamEncoderWriteCallback(const void *encoder, const void *buffer, size_t bytes, uint32_t samples, uint32_t current_frame, void *client_data)');
  const initStream = lib.func('int FLAC__stream_encoder_init_stream(void *encoder, FLAC__StreamEncoderWriteCallback *write_callback, void *seek_callback, void *tell_callback, void *metadata_callback, void *client_data)');
  const processInterleaved = lib.func('int FLAC__stream_encoder_process_interleaved(void *encoder, const int32_t *buffer, uint32_t samples)');
  const finish = lib.func('int FLAC__stream_encoder_finish(void *encoder)');
  const getState = lib.func('int FLAC__stream_encoder_get_state(void *encoder)');

  // One callback for every session: libFLAC calls it synchronously, from inside the session's own
  // init/process/finish call on this thread, so the bytes go to the session making the call.
  let sink: Buffer[] | undefined;
  const write: IKoffiRegisteredCallback = koffi.register((_encoder: unknown, buffer: unknown, bytes: number) => {
    sink?.push(Buffer.from(new Uint8Array(koffi.view(buffer, bytes))));
    return WRITE_STATUS_OK;
  }, koffi.pointer(WriteCallback));
  /** Runs a libFLAC call and returns what it wrote. */
  const collect = (call: () => void): Buffer => {
    const out: Buffer[] = [];
    sink = out;
    try {
      call();
    } finally {
      sink = undefined;
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  };

  return {
    libraries: [library],
    open(settings: CodecSettings): CodecSession {
      const encoder: unknown = encoderNew();
      if (encoder === null) throw new Error('FLAC__stream_encoder_new failed');
      let open = true;
      const release = (): void => {
        if (!open) return;
        open = false;
        encoderDelete(encoder); // finishes first if needed; nothing is written without a sink
      };
      const token = {};
      nativeFinalizer.register(token, release, token);
      const configured =
        setChannels(encoder, 1) !== 0 && setBitsPerSample(encoder, 16) !== 0 && setSampleRate(encoder, settings.sampleRate) !== 0 && setCompressionLevel(encoder, COMPRESSION_LEVEL) !== 0;
      let status = -1;
      let header: Buffer = Buffer.alloc(0);
      if (configured) header = collect(() => (status = initStream(encoder, write, null, null, null, null) as number));
      if (status !== INIT_STATUS_OK) {
        release();
        throw new Error(`FLAC__stream_encoder_init_stream failed (init status ${String(status)}) for ${String(settings.sampleRate)} Hz`);
      }
      const failed = (call: string): Error => new Error(`${call} failed (encoder state ${String(getState(encoder))})`);
      /** The header (fLaC, STREAMINFO, VORBIS_COMMENT) goes out with the first frame. */
      const withHeader = (bytes: Buffer): Buffer => {
        if (header.length === 0 || bytes.length === 0) return bytes;
        const out = Buffer.concat([header, bytes]);
        header = Buffer.alloc(0);
        return out;
      };
      const assertOpen = (): void => {
        if (!open) throw new Error('libFLAC session is closed');
      };
      return {
        encode(samples) {
          assertOpen();
          if (samples.length === 0) return Buffer.alloc(0);
          const pcm = Int32Array.from(floatToInt16(samples));
          let ok = 0;
          const bytes = collect(() => (ok = processInterleaved(encoder, pcm, pcm.length) as number));
          if (ok === 0) throw failed('FLAC__stream_encoder_process_interleaved');
          return withHeader(bytes);
        },
        flush: () => Buffer.alloc(0),
        finish() {
          assertOpen();
          let ok = 0;
          const bytes = collect(() => (ok = finish(encoder) as number));
          if (ok === 0) throw failed('FLAC__stream_encoder_finish');
          const out = header.length > 0 ? Buffer.concat([header, bytes]) : bytes;
          header = Buffer.alloc(0);
          return out;
        },
        close() {
          nativeFinalizer.unregister(token);
          release();
        },
      };
    },
  };
}
