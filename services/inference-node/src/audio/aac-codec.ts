/**
 * aac (AAC-LC in ADTS) through FFmpeg's own AAC encoder in libavcodec (koffi), the encoder the ffmpeg
 * process runs: mono, target bit rate, the "fast" quantizer search (see AAC_CODER), encoded at the
 * input rate, fed the same 16-bit samples (as floats, the way ffmpeg converts them), 1024-sample
 * frames, the last one short; each packet gets the 7-byte ADTS header of ffmpeg's adts muxer
 * (MPEG-4, no CRC, LC, buffer fullness 0x7FF), so the frames are the ones ffmpeg writes with the same
 * settings (encode.test.ts compares them byte for byte). As from ffmpeg, the stream starts with the
 * encoder's 1024 samples of priming, which ADTS cannot mark.
 *
 * The encoder is set up through AVOptions where the context has one ("b", "ar", "ch_layout",
 * "time_base", the encoder's "aac_coder"; "frame_size" is read back); the few struct fields without
 * one (the context's sample_fmt, the frame's nb_samples/format/sample_rate/ch_layout/data, the
 * packet's data/size) are read and written at offsets taken from the FFmpeg 5.1.9 headers (libavcodec
 * 59.37.100, libavutil 57.28.100; Debian 12's libavcodec-dev/libavutil-dev 7:5.1.9-0+deb12u1). They hold for every
 * libavcodec 59 from 59.37 and libavutil 57 from 57.28 (FFmpeg only appends fields within a major);
 * any other version is refused at load, and aac then goes through ffmpeg as before.
 */
import koffi, { type IKoffiCType, type IKoffiLib } from 'koffi';
import type { CodecSession, CodecSettings, NativeCodec } from './native-codec.js';
import { nativeFinalizer } from './native-codec.js';
import { int16Of } from './pcm.js';

/** The libavcodec shared object (Debian 12: libavcodec59, a dependency of the ffmpeg package). */
export const AVCODEC_LIBRARY = 'libavcodec.so.59';
/** The libavutil shared object (Debian 12: libavutil57). */
export const AVUTIL_LIBRARY = 'libavutil.so.57';

/** Versions whose struct layout the offsets below come from: the major, and the lowest minor. */
export const LAYOUT_VERSIONS = { libavcodec: [59, 37], libavutil: [57, 28] } as const;

/** Byte offsets in FFmpeg 5.1's structs (x86-64 / any LP64 ABI), from the headers named above. */
const OFFSET = {
  /** AVCodecContext.sample_fmt (enum AVSampleFormat; no AVOption in lavc 59). */
  contextSampleFmt: 360,
  /** AVFrame.data[0] (uint8_t *). */
  frameData0: 0,
  /** AVFrame.nb_samples (int). */
  frameNbSamples: 112,
  /** AVFrame.format (int). */
  frameFormat: 116,
  /** AVFrame.sample_rate (int). */
  frameSampleRate: 208,
  /** AVFrame.ch_layout (AVChannelLayout, 24 bytes). */
  frameChLayout: 448,
  /** AVPacket.data (uint8_t *). */
  packetData: 24,
  /** AVPacket.size (int). */
  packetSize: 32,
} as const;

const AV_SAMPLE_FMT_FLTP = 8;
const AV_CHANNEL_ORDER_NATIVE = 1;
const AV_CH_LAYOUT_MONO = 0x4n; // AV_CH_FRONT_CENTER
const AVERROR_EAGAIN = -11;
const AVERROR_EOF = -541478725; // FFERRTAG('E','O','F',' ')
const AV_LOG_QUIET = -8;
/** av_opt_* flag: look in the codec's private options too (where aac_coder is). */
const AV_OPT_SEARCH_CHILDREN = 1;
/**
 * The encoder's quantizer search ("aac_coder"), the same as `ffmpeg-encoder.ts` passes. FFmpeg 5.1's
 * default, "twoloop", costs several times the CPU of "fast" on speech, enough to keep aac far below
 * wav's requests per second for short requests; at the bit rates used here (32 kbit/s at 8 kHz,
 * 96-128 for one channel above) "fast" puts its output no further from the input (waveform SNR and
 * log-spectral distance on the same clips). Figures: bench/README.md, `encoders`.
 */
const AAC_CODER = 'fast';
/** Frame length of AAC-LC (samples); the encoder must report it. */
const AAC_FRAME = 1024;
/** ADTS sampling_frequency_index by rate (ISO/IEC 14496-3, 1.6.3.4). */
const SAMPLING_FREQUENCY_INDEX = new Map([96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350].map((rate, index) => [rate, index]));
const ADTS_HEADER_BYTES = 7;
/** Largest ADTS frame (13-bit length field). */
const ADTS_MAX_FRAME_BYTES = 0x1fff;

let rational: IKoffiCType | undefined;
/** koffi's type names are global: declared once, on the first load (AVRational is used by name in a prototype). */
function declareRational(): void {
  rational ??= koffi.struct('AVRational', { num: 'int', den: 'int' });
}

/** AVChannelLayout of one channel (order native, 1 channel, mask front center, opaque null), as the 24 bytes of the struct. */
const MONO_LAYOUT = (() => {
  const bytes = Buffer.alloc(24);
  bytes.writeInt32LE(AV_CHANNEL_ORDER_NATIVE, 0);
  bytes.writeInt32LE(1, 4);
  bytes.writeBigUInt64LE(AV_CH_LAYOUT_MONO, 8);
  return bytes;
})();

/** glibc's mallopt parameter for the mmap threshold (malloc.h). */
const M_MMAP_THRESHOLD = -3;
/** Allocations from this size on get their own mapping, returned to the system when freed (bytes). */
const MMAP_THRESHOLD_BYTES = 256 * 1024;

/** The C library (for memcpy, and glibc's mallopt). */
const LIBC = 'libc.so.6';

/**
 * Each aac session allocates two blocks of about 550 kB (the encoder's context and its
 * psychoacoustic state). glibc serves the first ones by mmap, but freeing them raises its dynamic mmap
 * threshold above their size, and from then on they come from the heap, where allocations that live
 * until the next garbage collection (Buffers; koffi's pointer objects, which this binding avoids)
 * land between them and keep the freed space from being reused: RSS grew with every encoder of
 * encode.test.ts's 1,000, while malloc's bytes in use stayed flat. A fixed threshold keeps such
 * blocks in their own mappings (what glibc does before it adjusts the threshold), and RSS stays flat.
 * The setting is the process's: every allocation of 256 kB or more in the node is mapped on its own
 * from then on. Another C library (no mallopt): left as it is.
 *
 * The price: a session maps fresh pages and faults each in while zeroing them, a large part of a
 * short sentence's encoding time on virtual machines, where page faults are dear. Taken from the
 * heap (a larger threshold) a session is cheaper, but RSS settled far higher after a few hundred
 * encoders even with those pointer objects gone, beyond the node's memory budget; returning the holes
 * with malloc_trim would bring the page faults back. Figures: bench/README.md, `saturation` (its
 * sitting "What aac costs").
 */
function keepLargeBlocksMapped(libc: IKoffiLib): void {
  try {
    libc.func('int mallopt(int param, int value)')(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
  } catch {
    // another C library: its allocator is not glibc's
  }
}

/**
 * Throws unless `version` (an AV_VERSION_INT, as `avcodec_version()` returns it) of `library` has the
 * struct layout of LAYOUT_VERSIONS: the same major, at least the minor.
 */
export function assertKnownLayout(library: keyof typeof LAYOUT_VERSIONS, version: number): void {
  const [major, minor] = LAYOUT_VERSIONS[library];
  if (version >>> 16 === major && ((version >>> 8) & 0xff) >= minor) return;
  const text = `${String(version >>> 16)}.${String((version >>> 8) & 0xff)}.${String(version & 0xff)}`;
  throw new Error(`${library} ${text} does not have the struct layout of ${library} ${String(major)}.${String(minor)}+ that this binding's offsets come from`);
}

/**
 * Loads libavcodec and libavutil (sonames or paths) and checks that their versions have the struct
 * layout this binding was written against; throws when either cannot be loaded, has another layout
 * or lacks the AAC encoder.
 */
export function openAacCodec(avcodecLibrary: string = AVCODEC_LIBRARY, avutilLibrary: string = AVUTIL_LIBRARY): NativeCodec {
  const avcodec = koffi.load(avcodecLibrary);
  const avutil = koffi.load(avutilLibrary);
  assertKnownLayout('libavcodec', avcodec.func('uint32_t avcodec_version()')() as number);
  assertKnownLayout('libavutil', avutil.func('uint32_t avutil_version()')() as number);

  const findEncoderByName = avcodec.func('const void *avcodec_find_encoder_by_name(const char *name)');
  const allocContext = avcodec.func('uintptr_t avcodec_alloc_context3(const void *codec)');
  const freeContext = avcodec.func('void avcodec_free_context(_Inout_ uintptr_t *avctx)');
  const openCodec = avcodec.func('int avcodec_open2(uintptr_t avctx, const void *codec, void *options)');
  const sendFrame = avcodec.func('int avcodec_send_frame(uintptr_t avctx, uintptr_t frame)');
  const receivePacket = avcodec.func('int avcodec_receive_packet(uintptr_t avctx, uintptr_t avpkt)');
  const packetAlloc = avcodec.func('uintptr_t av_packet_alloc()');
  const packetFree = avcodec.func('void av_packet_free(_Inout_ uintptr_t *pkt)');
  const packetUnref = avcodec.func('void av_packet_unref(uintptr_t pkt)');
  declareRational();
  const optSetInt = avutil.func('int av_opt_set_int(uintptr_t obj, const char *name, int64_t val, int search_flags)');
  const optSet = avutil.func('int av_opt_set(uintptr_t obj, const char *name, const char *val, int search_flags)');
  const optSetQ = avutil.func('int av_opt_set_q(uintptr_t obj, const char *name, AVRational val, int search_flags)');
  const optGetInt = avutil.func('int av_opt_get_int(uintptr_t obj, const char *name, int search_flags, _Out_ int64_t *out_val)');
  const frameAlloc = avutil.func('uintptr_t av_frame_alloc()');
  const frameFree = avutil.func('void av_frame_free(_Inout_ uintptr_t *frame)');
  const frameGetBuffer = avutil.func('int av_frame_get_buffer(uintptr_t frame, int align)');
  const frameMakeWritable = avutil.func('int av_frame_make_writable(uintptr_t frame)');
  const strerror = avutil.func('int av_strerror(int errnum, _Out_ char *errbuf, size_t errbuf_size)');
  // The context, frame and packet are held as addresses (uintptr_t), and samples, packets and the
  // struct fields at OFFSET are copied by memcpy: koffi's pointer objects (each `void *` a call
  // returns, memcpy's own result included) and views of native memory (koffi.decode(..., 'void *'),
  // koffi.view) keep some native memory each until they are collected, a few per 1024 samples,
  // scattered between the session's blocks. uintptr_t and a pointer are
  // passed alike.
  const libc = koffi.load(LIBC);
  const copyToNative = libc.func('uintptr_t memcpy(uintptr_t dest, const float *src, size_t n)');
  const copyFromNative = libc.func('uintptr_t memcpy(_Out_ uint8_t *dest, uintptr_t src, size_t n)');
  const copyBytesToNative = libc.func('uintptr_t memcpy(uintptr_t dest, const uint8_t *src, size_t n)');
  // One int or address at a time, copied in or out.
  const field = Buffer.alloc(8);
  const writeInt = (address: number, value: number): void => {
    field.writeInt32LE(value, 0);
    copyBytesToNative(address, field, 4);
  };
  const readInt = (address: number): number => {
    copyFromNative(field, address, 4);
    return field.readInt32LE(0);
  };
  const readAddress = (address: number): number => {
    copyFromNative(field, address, 8);
    return Number(field.readBigUInt64LE(0));
  };
  // Errors come back as return codes; nothing of libav's own logging reaches the node's stderr.
  avutil.func('void av_log_set_level(int level)')(AV_LOG_QUIET);

  const codec: unknown = findEncoderByName('aac');
  if (codec === null) throw new Error(`${avcodecLibrary} has no aac encoder`);
  keepLargeBlocksMapped(libc);

  const avError = (call: string, code: number): Error => {
    const text = Buffer.alloc(128);
    strerror(code, text, text.length);
    return new Error(`${call} failed: ${text.toString('latin1', 0, Math.max(0, text.indexOf(0)))} (${String(code)})`);
  };
  const checked = (call: string, code: number): void => {
    if (code < 0) throw avError(call, code);
  };

  return {
    libraries: [avcodecLibrary, avutilLibrary, LIBC],
    open(settings: CodecSettings): CodecSession {
      const { sampleRate } = settings;
      const frequencyIndex = SAMPLING_FREQUENCY_INDEX.get(sampleRate);
      if (frequencyIndex === undefined) throw new Error(`AAC has no ADTS sampling frequency index for ${String(sampleRate)} Hz`);
      const context = allocContext(codec) as number;
      if (context === 0) throw new Error('avcodec_alloc_context3 failed');
      const frame = frameAlloc() as number;
      const packet = packetAlloc() as number;
      let open = true;
      const release = (): void => {
        if (!open) return;
        open = false;
        freeContext([context]);
        if (frame !== 0) frameFree([frame]);
        if (packet !== 0) packetFree([packet]);
      };
      const token = {};
      nativeFinalizer.register(token, release, token);
      try {
        if (frame === 0 || packet === 0) throw new Error('av_frame_alloc or av_packet_alloc failed');
        checked('av_opt_set_int(b)', optSetInt(context, 'b', Math.round(settings.bitrateKbps * 1000), 0) as number);
        checked('av_opt_set_int(ar)', optSetInt(context, 'ar', sampleRate, 0) as number);
        checked('av_opt_set(ch_layout)', optSet(context, 'ch_layout', 'mono', 0) as number);
        checked('av_opt_set_q(time_base)', optSetQ(context, 'time_base', { num: 1, den: sampleRate }, 0) as number);
        checked('av_opt_set(aac_coder)', optSet(context, 'aac_coder', AAC_CODER, AV_OPT_SEARCH_CHILDREN) as number);
        writeInt(context + OFFSET.contextSampleFmt, AV_SAMPLE_FMT_FLTP);
        checked('avcodec_open2(aac)', openCodec(context, codec, null) as number);
        const frameSize = [0n];
        checked('av_opt_get_int(frame_size)', optGetInt(context, 'frame_size', 0, frameSize) as number);
        if (Number(frameSize[0]) !== AAC_FRAME) throw new Error(`the aac encoder asks for frames of ${String(frameSize[0])} samples, not ${String(AAC_FRAME)}`);
        writeInt(frame + OFFSET.frameNbSamples, AAC_FRAME);
        writeInt(frame + OFFSET.frameFormat, AV_SAMPLE_FMT_FLTP);
        writeInt(frame + OFFSET.frameSampleRate, sampleRate);
        copyBytesToNative(frame + OFFSET.frameChLayout, MONO_LAYOUT, MONO_LAYOUT.length);
        checked('av_frame_get_buffer', frameGetBuffer(frame, 0) as number);
      } catch (err) {
        nativeFinalizer.unregister(token);
        release();
        throw err;
      }

      // ADTS fixed header + the constant part of the variable header (ISO/IEC 14496-3, 1.A.2.2):
      // syncword, MPEG-4, layer 0, no CRC, profile LC (object type 2 - 1), frequency index, channel
      // configuration 1, buffer fullness 0x7FF (VBR), one raw data block; the frame length goes in per frame.
      const header = Buffer.from([0xff, 0xf1, (1 << 6) | (frequencyIndex << 2), 1 << 6, 0, 0x1f, 0xfc]);
      const pending = new Float32Array(AAC_FRAME);
      let pendingFill = 0;
      let out: Buffer[] = [];

      const drain = (): void => {
        for (;;) {
          const status = receivePacket(context, packet) as number;
          if (status === AVERROR_EAGAIN || status === AVERROR_EOF) return;
          checked('avcodec_receive_packet', status);
          try {
            const size = readInt(packet + OFFSET.packetSize);
            const length = ADTS_HEADER_BYTES + size;
            if (length > ADTS_MAX_FRAME_BYTES) throw new Error(`an AAC frame of ${String(size)} bytes does not fit an ADTS frame`);
            const adts = Buffer.allocUnsafe(length);
            header.copy(adts);
            adts[3] = header[3]! | (length >>> 11);
            adts[4] = (length >>> 3) & 0xff;
            adts[5] = ((length & 7) << 5) | 0x1f;
            copyFromNative(adts.subarray(ADTS_HEADER_BYTES), readAddress(packet + OFFSET.packetData), size);
            out.push(adts);
          } finally {
            packetUnref(packet);
          }
        }
      };
      /** Sends `pending` (its first `samples` samples; fewer than a frame only at the end). */
      const sendPending = (samples: number): void => {
        checked('av_frame_make_writable', frameMakeWritable(frame) as number); // the encoder may still hold the last one
        if (samples !== AAC_FRAME) writeInt(frame + OFFSET.frameNbSamples, samples);
        copyToNative(readAddress(frame + OFFSET.frameData0), pending, samples * 4);
        checked('avcodec_send_frame', sendFrame(context, frame) as number);
        pendingFill = 0;
        drain();
      };
      const takeOut = (): Buffer => {
        const bytes = out.length === 1 ? out[0]! : Buffer.concat(out);
        out = [];
        return bytes;
      };
      const assertOpen = (): void => {
        if (!open) throw new Error('aac session is closed');
      };

      return {
        encode(samples) {
          assertOpen();
          // The 16-bit samples ffmpeg was fed, as the floats it converted them to.
          for (let at = 0; at < samples.length; ) {
            const take = Math.min(AAC_FRAME - pendingFill, samples.length - at);
            for (let i = 0; i < take; i++) pending[pendingFill + i] = int16Of(samples[at + i]!) / 32768;
            pendingFill += take;
            at += take;
            if (pendingFill === AAC_FRAME) sendPending(AAC_FRAME);
          }
          return takeOut();
        },
        flush: () => Buffer.alloc(0),
        finish() {
          assertOpen();
          if (pendingFill > 0) sendPending(pendingFill);
          checked('avcodec_send_frame(NULL)', sendFrame(context, 0) as number);
          drain();
          return takeOut();
        },
        close() {
          nativeFinalizer.unregister(token);
          release();
        },
      };
    },
  };
}
