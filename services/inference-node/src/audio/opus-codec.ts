/**
 * Ogg Opus (RFC 7845) through libopus and libogg (koffi). libopus encodes 20 ms frames at the input
 * rate (8, 12, 16, 24 or 48 kHz) with ffmpeg's former settings (OPUS_APPLICATION_AUDIO, VBR, no FEC)
 * but complexity 5 (OPUS_COMPLEXITY, below); libogg frames them: an OpusHead page (input rate, pre-skip = the encoder's
 * lookahead at 48 kHz), an OpusTags page, then audio pages whose granule positions count 48 kHz
 * samples including the pre-skip; the last page carries the end-of-stream flag and a granule position
 * that trims the padding of the last frame, so the decoded length equals the input's. Pages cover
 * 1 s of audio, or 60 ms when streaming (and a live stream gets a page at the end of every write).
 */
import { randomInt } from 'node:crypto';
import koffi from 'koffi';
import type { CodecSession, CodecSettings, NativeCodec } from './native-codec.js';
import { nativeFinalizer } from './native-codec.js';
import { floatToInt16 } from './pcm.js';

/** The libopus shared object (Debian: libopus0). */
export const OPUS_LIBRARY = 'libopus.so.0';
/** The libogg shared object (Debian: libogg0). */
export const OGG_LIBRARY = 'libogg.so.0';

const OPUS_APPLICATION_AUDIO = 2049;
const OPUS_SET_BITRATE = 4002;
const OPUS_SET_VBR = 4006;
const OPUS_SET_COMPLEXITY = 4010;
const OPUS_SET_INBAND_FEC = 4012;
const OPUS_SET_PACKET_LOSS_PERC = 4014;
const OPUS_SET_VBR_CONSTRAINT = 4020;
const OPUS_GET_LOOKAHEAD = 4027;
/**
 * libopus complexity (TTS_OPUS_COMPLEXITY overrides it). ffmpeg's 10 makes opus the dearest format
 * on 16 kHz speech at the 32 kbit/s default (libopus codes it with SILK, whose search at complexity
 * 7 and above dominates); 5 costs a fraction of that, with a spectral distance to the input close
 * to complexity 10's and the same ASR word error rate of the decoded audio; 4 is clearly further
 * from the input. VBR then spends somewhat more bits (bench/README.md, `opus-complexity`).
 */
export const OPUS_COMPLEXITY = 5;
/** Largest packet of one 20 ms frame is 1275 bytes (RFC 6716); room to spare. */
const MAX_PACKET_BYTES = 4000;
/** Bit rates ffmpeg's libopus wrapper took for one channel (bit/s). */
const MIN_BITRATE = 500;
const MAX_BITRATE = 256_000;
/** Frame length (ms), as ffmpeg's default. */
const FRAME_MS = 20;
/** Ogg Opus granule positions count samples at 48 kHz. */
const GRANULE_RATE = 48_000;
/** Audio per page (ms): ffmpeg's Ogg default, and the short pages of a live stream (as STREAMING_OGG_PAGE_US). */
const PAGE_MS = 1000;
const STREAMING_PAGE_MS = 60;

/** koffi's types are named process-wide: libogg's structs are declared once, on the first load. */
let streamStateType: koffi.IKoffiCType | undefined;
function oggStreamState(): koffi.IKoffiCType {
  if (streamStateType !== undefined) return streamStateType;
  // libogg 1.3 (ogg.h): the stream state is only allocated here, never read.
  streamStateType = koffi.struct('ogg_stream_state', {
    body_data: 'void *', body_storage: 'long', body_fill: 'long', body_returned: 'long',
    lacing_vals: 'void *', granule_vals: 'void *', lacing_storage: 'long', lacing_fill: 'long', lacing_packet: 'long', lacing_returned: 'long',
    header: koffi.array('uint8_t', 282), header_fill: 'int', e_o_s: 'int', b_o_s: 'int', serialno: 'long', pageno: 'long', packetno: 'int64_t', granulepos: 'int64_t',
  });
  koffi.struct('ogg_packet', { packet: 'const void *', bytes: 'long', b_o_s: 'long', e_o_s: 'long', granulepos: 'int64_t', packetno: 'int64_t' });
  koffi.struct('ogg_page', { header: 'void *', header_len: 'long', body: 'void *', body_len: 'long' });
  return streamStateType;
}

/** Loads libopus and libogg (sonames or paths); throws when either cannot be loaded. */
export function openOggOpusCodec(opusLibrary: string = OPUS_LIBRARY, oggLibrary: string = OGG_LIBRARY): NativeCodec {
  const opus = koffi.load(opusLibrary);
  const ogg = koffi.load(oggLibrary);
  const encoderCreate = opus.func('void *opus_encoder_create(int32_t Fs, int channels, int application, _Out_ int *error)');
  const encoderCtl = opus.func('int opus_encoder_ctl(void *st, int request, ...)');
  const encode = opus.func('int32_t opus_encode(void *st, const int16_t *pcm, int frame_size, _Out_ uint8_t *data, int32_t max_data_bytes)');
  const encoderDestroy = opus.func('void opus_encoder_destroy(void *st)');
  const strerror = opus.func('const char *opus_strerror(int error)');
  const vendor = String(opus.func('const char *opus_get_version_string()')());

  const StreamState = oggStreamState();
  const streamInit = ogg.func('int ogg_stream_init(ogg_stream_state *os, int serialno)');
  const streamPacketIn = ogg.func('int ogg_stream_packetin(ogg_stream_state *os, const ogg_packet *op)');
  const streamFlush = ogg.func('int ogg_stream_flush(ogg_stream_state *os, _Out_ ogg_page *og)');
  const streamClear = ogg.func('int ogg_stream_clear(ogg_stream_state *os)');

  const opusError = (call: string, code: number): Error => new Error(`${call} failed: ${String(strerror(code))} (${String(code)})`);

  return {
    libraries: [opusLibrary, oggLibrary],
    open(settings: CodecSettings): CodecSession {
      const { sampleRate, streaming } = settings;
      const bitrate = Math.round(settings.bitrateKbps * 1000);
      const complexity = settings.complexity ?? OPUS_COMPLEXITY;
      if (!Number.isInteger(complexity) || complexity < 0 || complexity > 10) throw new Error(`The Opus complexity ${String(complexity)} is unsupported: choose an integer from 0 to 10.`);
      if (bitrate < MIN_BITRATE || bitrate > MAX_BITRATE) throw new Error(`The bit rate ${String(bitrate)} bps is unsupported for Opus: choose a value between ${String(MIN_BITRATE)} and ${String(MAX_BITRATE)}.`);
      const error = [0];
      const encoder: unknown = encoderCreate(sampleRate, 1, OPUS_APPLICATION_AUDIO, error);
      if (encoder === null) throw opusError('opus_encoder_create', error[0] ?? 0);
      const stream: unknown = koffi.alloc(StreamState, 1);
      let open = true;
      const release = (): void => {
        if (!open) return;
        open = false;
        encoderDestroy(encoder);
        streamClear(stream);
        koffi.free(stream);
      };
      const token = {};
      nativeFinalizer.register(token, release, token);
      const lookahead = [0];
      try {
        for (const [request, value] of [[OPUS_SET_BITRATE, bitrate], [OPUS_SET_COMPLEXITY, complexity], [OPUS_SET_VBR, 1], [OPUS_SET_VBR_CONSTRAINT, 0], [OPUS_SET_PACKET_LOSS_PERC, 0], [OPUS_SET_INBAND_FEC, 0]] as const) {
          const status = encoderCtl(encoder, request, 'int32_t', value) as number;
          if (status !== 0) throw opusError(`opus_encoder_ctl(${String(request)})`, status);
        }
        const status = encoderCtl(encoder, OPUS_GET_LOOKAHEAD, '_Out_ int32_t *', lookahead) as number;
        if (status !== 0) throw opusError('opus_encoder_ctl(OPUS_GET_LOOKAHEAD)', status);
        if ((streamInit(stream, randomInt(2 ** 31)) as number) !== 0) throw new Error('ogg_stream_init failed');
      } catch (err) {
        release();
        throw err;
      }

      const toGranule = GRANULE_RATE / sampleRate; // an integer: every Opus rate divides 48 kHz
      const delay = lookahead[0] ?? 0; // input samples the decoder's output lags by
      const frameSize = (sampleRate * FRAME_MS) / 1000;
      const packetsPerPage = (streaming ? STREAMING_PAGE_MS : PAGE_MS) / FRAME_MS;
      const frame = new Int16Array(frameSize);
      const packet = Buffer.alloc(MAX_PACKET_BYTES);
      let frameFill = 0;
      let inputSamples = 0;
      let packetNo = 0;
      let framesEncoded = 0;
      let unpaged = 0; // audio packets given to libogg since the last page
      let pages: Buffer[] = [];

      const packetIn = (data: Uint8Array, granule: number, eos = false): void => {
        const status = streamPacketIn(stream, { packet: data, bytes: data.length, b_o_s: packetNo === 0 ? 1 : 0, e_o_s: eos ? 1 : 0, granulepos: granule, packetno: packetNo }) as number;
        if (status !== 0) throw new Error('ogg_stream_packetin failed');
        packetNo++;
      };
      const flushPages = (): void => {
        for (;;) {
          const page: { header?: unknown; header_len?: number; body?: unknown; body_len?: number } = {};
          if ((streamFlush(stream, page) as number) === 0) break;
          pages.push(Buffer.concat([new Uint8Array(koffi.view(page.header, page.header_len ?? 0)), new Uint8Array(koffi.view(page.body, page.body_len ?? 0))]));
        }
        unpaged = 0;
      };
      /** The pages made so far; the header pages wait for the first audio page. */
      let headerPages = 0;
      const takePages = (): Buffer => {
        if (pages.length <= headerPages) return Buffer.alloc(0);
        const bytes = Buffer.concat(pages);
        pages = [];
        headerPages = 0;
        return bytes;
      };
      const encodeFrame = (granule?: number): void => {
        const size = encode(encoder, frame, frameSize, packet, packet.length) as number;
        if (size < 0) throw opusError('opus_encode', size);
        framesEncoded++;
        frameFill = 0;
        packetIn(packet.subarray(0, size), granule ?? framesEncoded * frameSize * toGranule, granule !== undefined);
        if (++unpaged >= packetsPerPage) flushPages();
      };
      const assertOpen = (): void => {
        if (!open) throw new Error('Opus session is closed');
      };

      // RFC 7845 §5: OpusHead (version 1, one channel, pre-skip at 48 kHz, input rate, gain 0, mapping family 0) and OpusTags, each on its own page.
      const head = Buffer.alloc(19);
      head.write('OpusHead', 0, 'latin1');
      head.writeUInt8(1, 8);
      head.writeUInt8(1, 9);
      head.writeUInt16LE(delay * toGranule, 10);
      head.writeUInt32LE(sampleRate, 12);
      const vendorBytes = Buffer.from(vendor, 'utf8');
      const tags = Buffer.alloc(8 + 4 + vendorBytes.length + 4);
      tags.write('OpusTags', 0, 'latin1');
      tags.writeUInt32LE(vendorBytes.length, 8);
      vendorBytes.copy(tags, 12);
      try {
        packetIn(head, 0);
        flushPages();
        packetIn(tags, 0);
        flushPages();
        headerPages = pages.length;
      } catch (err) {
        release();
        throw err;
      }

      return {
        encode(samples) {
          assertOpen();
          const pcm = floatToInt16(samples);
          inputSamples += pcm.length;
          for (let at = 0; at < pcm.length; ) {
            const take = Math.min(frameSize - frameFill, pcm.length - at);
            frame.set(pcm.subarray(at, at + take), frameFill);
            frameFill += take;
            at += take;
            if (frameFill === frameSize) encodeFrame();
          }
          return takePages();
        },
        flush() {
          assertOpen();
          if (streaming && unpaged > 0) flushPages();
          return takePages();
        },
        finish() {
          assertOpen();
          // Frames until the decoder, `delay` samples behind, has put out every input sample; the last
          // page's granule position trims what lies beyond (RFC 7845 §4.4).
          const framesNeeded = Math.max(framesEncoded + 1, Math.ceil((inputSamples + delay) / frameSize));
          while (framesEncoded < framesNeeded) {
            frame.fill(0, frameFill);
            encodeFrame(framesEncoded + 1 === framesNeeded ? (inputSamples + delay) * toGranule : undefined);
          }
          flushPages();
          return takePages();
        },
        close() {
          nativeFinalizer.unregister(token);
          release();
        },
      };
    },
  };
}
