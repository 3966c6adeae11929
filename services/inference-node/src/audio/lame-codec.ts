/**
 * mp3 through libmp3lame (koffi): constant bit rate, mono, encoded at the input rate, with the
 * settings ffmpeg's libmp3lame wrapper used before (no Xing/LAME tag frame, no ID3 tags, bit
 * reservoir on), fed the same 16-bit samples, at the same LAME quality (MP3_QUALITY, which the ffmpeg
 * path passes as -compression_level), so the frames are the ones ffmpeg writes (encode.test.ts
 * compares them byte for byte).
 */
import koffi from 'koffi';
import type { CodecSession, CodecSettings, NativeCodec } from './native-codec.js';
import { nativeFinalizer } from './native-codec.js';
import { floatToInt16 } from './pcm.js';

/** The libmp3lame shared object (Debian: libmp3lame0). */
export const LAME_LIBRARY = 'libmp3lame.so.0';

/**
 * LAME's quality (0 best and slowest - 9 fastest; lame_set_quality); TTS_MP3_QUALITY overrides it.
 * 5 costs less CPU than LAME's own default, 3, on speech at the node's bit rates, with no larger
 * log-spectral distance to the input nor a higher ASR word error rate. 7 costs less still at the
 * same spectral distance, but its word error rate on espeak-ng was higher by more than the one word
 * the comparison allows (bench/README.md, `mp3-quality`).
 */
export const MP3_QUALITY = 5;

/** LAME's MPEG_mode for one channel. */
const MODE_MONO = 3;
/** Worst-case output of `lame_encode_buffer` for n samples is 1.25 n + 7200 bytes (lame.h); flush needs at most 7200. */
const mp3BufferBytes = (samples: number): number => Math.ceil(1.25 * samples) + 7200;

/** Loads libmp3lame (a soname or a path); throws when it cannot be loaded. */
export function openLameCodec(library: string = LAME_LIBRARY): NativeCodec {
  const lib = koffi.load(library);
  const init = lib.func('void *lame_init()');
  const close = lib.func('int lame_close(void *gfp)');
  const setInt = (name: string): ((gfp: unknown, value: number) => number) => lib.func(`int ${name}(void *gfp, int value)`) as (gfp: unknown, value: number) => number;
  const setInSamplerate = setInt('lame_set_in_samplerate');
  const setOutSamplerate = setInt('lame_set_out_samplerate');
  const setNumChannels = setInt('lame_set_num_channels');
  const setMode = setInt('lame_set_mode');
  const setBrate = setInt('lame_set_brate');
  const setQuality = setInt('lame_set_quality');
  const setWriteVbrTag = setInt('lame_set_bWriteVbrTag');
  const setDisableReservoir = setInt('lame_set_disable_reservoir');
  const setWriteId3tagAutomatic = lib.func('void lame_set_write_id3tag_automatic(void *gfp, int value)');
  const initParams = lib.func('int lame_init_params(void *gfp)');
  const encodeBuffer = lib.func('int lame_encode_buffer(void *gfp, const int16_t *left, const int16_t *right, int samples, _Out_ uint8_t *mp3buf, int size)');
  const encodeFlush = lib.func('int lame_encode_flush(void *gfp, _Out_ uint8_t *mp3buf, int size)');

  return {
    libraries: [library],
    open(settings: CodecSettings): CodecSession {
      const quality = settings.quality ?? MP3_QUALITY;
      if (!Number.isInteger(quality) || quality < 0 || quality > 9) throw new Error(`LAME quality ${String(quality)} is not an integer from 0 to 9`);
      const gfp: unknown = init();
      if (gfp === null) throw new Error('lame_init failed');
      let open = true;
      const release = (): void => {
        if (!open) return;
        open = false;
        close(gfp);
      };
      const token = {};
      nativeFinalizer.register(token, release, token);
      const configured =
        setInSamplerate(gfp, settings.sampleRate) === 0 &&
        setOutSamplerate(gfp, settings.sampleRate) === 0 &&
        setNumChannels(gfp, 1) === 0 &&
        setMode(gfp, MODE_MONO) === 0 &&
        setBrate(gfp, Math.round(settings.bitrateKbps)) === 0 &&
        setQuality(gfp, quality) === 0 &&
        setWriteVbrTag(gfp, 0) === 0 &&
        setDisableReservoir(gfp, 0) === 0;
      setWriteId3tagAutomatic(gfp, 0);
      const status = configured ? (initParams(gfp) as number) : -1;
      if (status < 0) {
        release();
        throw new Error(`libmp3lame refused ${String(settings.sampleRate)} Hz at ${String(settings.bitrateKbps)} kbit/s (lame_init_params ${String(status)})`);
      }
      let out = Buffer.alloc(mp3BufferBytes(Math.round(settings.sampleRate * 0.1)));
      const checked = (written: number, call: string): Buffer => {
        if (written < 0) throw new Error(`${call} failed (${String(written)})`);
        return Buffer.from(out.subarray(0, written));
      };
      return {
        encode(samples) {
          if (!open) throw new Error('libmp3lame session is closed');
          if (samples.length === 0) return Buffer.alloc(0);
          if (out.length < mp3BufferBytes(samples.length)) out = Buffer.alloc(mp3BufferBytes(samples.length));
          const pcm = floatToInt16(samples);
          return checked(encodeBuffer(gfp, pcm, pcm, pcm.length, out, out.length) as number, 'lame_encode_buffer');
        },
        flush: () => Buffer.alloc(0),
        finish() {
          if (!open) throw new Error('libmp3lame session is closed');
          return checked(encodeFlush(gfp, out, out.length) as number, 'lame_encode_flush');
        },
        close() {
          nativeFinalizer.unregister(token);
          release();
        },
      };
    },
  };
}
