/** WAV (RIFF/RF64) writing and reading, in memory, without ffmpeg. */
import { TtsError } from '@tts/common';
import type { MediaFormat } from './media-input.js';
import { writePcm16le, type PcmAudio } from './pcm.js';

/** Size of the canonical PCM WAV header `wavHeader` writes. */
export const WAV_HEADER_BYTES = 44;

/** Size value streaming writers put in RIFF and data sizes when the length is not known yet. */
const UNKNOWN_SIZE = 0xffffffff;
const MAX_DATA_BYTES = UNKNOWN_SIZE - 36;

const WAVE_FORMAT_PCM = 0x0001;
const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** Bytes 2..15 of every KSDATAFORMAT_SUBTYPE_* GUID whose first two bytes are a WAVE_FORMAT tag. */
const SUBFORMAT_GUID_TAIL = Buffer.from([0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71]);

/** What `decodeWav` returns: the mono mixdown plus facts about the file. */
export interface DecodedWav extends PcmAudio {
  /** Channels in the file (the samples are their average). */
  readonly channels: number;
  /** Bits per sample of the file's sample container. */
  readonly bitsPerSample: number;
  /** Integer PCM or IEEE float samples. */
  readonly format: 'pcm' | 'float';
}

/**
 * 44-byte PCM 16-bit WAV header. `dataBytes` undefined = streaming header with RIFF and data sizes
 * 0xFFFFFFFF, as OpenAI's streaming WAV.
 */
export function wavHeader(sampleRate: number, dataBytes?: number, channels = 1): Buffer {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0 || sampleRate > UNKNOWN_SIZE) throw new RangeError(`sampleRate must be a positive integer, got ${String(sampleRate)}`);
  if (!Number.isInteger(channels) || channels < 1 || channels > 0xffff) throw new RangeError(`channels must be an integer from 1 to 65535, got ${String(channels)}`);
  if (dataBytes !== undefined && (!Number.isInteger(dataBytes) || dataBytes < 0 || dataBytes > MAX_DATA_BYTES)) {
    throw new RangeError(`dataBytes must be an integer from 0 to ${MAX_DATA_BYTES}, got ${String(dataBytes)}`);
  }
  const blockAlign = channels * 2;
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(dataBytes === undefined ? UNKNOWN_SIZE : 36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(WAVE_FORMAT_PCM, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes ?? UNKNOWN_SIZE, 40);
  return header;
}

/** Whole WAV file (RIFF, PCM 16-bit mono) with exact sizes. */
export function encodeWav(audio: PcmAudio): Buffer {
  const dataBytes = audio.samples.length * 2;
  const file = Buffer.allocUnsafeSlow(WAV_HEADER_BYTES + dataBytes);
  wavHeader(audio.sampleRate, dataBytes).copy(file, 0);
  writePcm16le(audio.samples, file, WAV_HEADER_BYTES);
  return file;
}

interface FmtChunk {
  readonly tag: number;
  readonly channels: number;
  readonly sampleRate: number;
  readonly bitsPerSample: number;
}

/** Where a WAV file's samples are and what they are, from its header (`wavLayout`). */
export interface WavLayout {
  readonly tag: number;
  readonly channels: number;
  readonly sampleRate: number;
  /** Bits per sample the fmt chunk declares. */
  readonly bitsPerSample: number;
  /** Byte offset of the samples. */
  readonly dataOffset: number;
  /** Bytes of samples present (the declared size, or up to the end for a streaming size). */
  readonly dataBytes: number;
  /**
   * Bytes of samples the header declares (the data chunk's, or ds64's for RF64); undefined for the
   * streaming sizes (0xFFFFFFFF, or 0 with an unknown RIFF size).
   */
  readonly declaredDataBytes: number | undefined;
}

/**
 * Reads a WAV header: RIFF or RF64; PCM 8/16/24/32-bit integer (any container width up to 32 bits),
 * 32/64-bit float, WAVE_FORMAT_EXTENSIBLE; any channel count; extra chunks (LIST, fact, ...) in any
 * order; streaming sizes (0xFFFFFFFF, or sizes past the end: the data runs to the end of the buffer).
 * Throws TtsError AUDIO_DECODE_FAILED when it is not a WAV it can read.
 */
export function wavLayout(buf: Uint8Array): WavLayout {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const fourcc = (at: number): string => String.fromCharCode(buf[at]!, buf[at + 1]!, buf[at + 2]!, buf[at + 3]!);
  if (buf.length < 12) throw decodeError('The WAV data is too short.');
  const riff = fourcc(0);
  if (riff === 'RIFX' || riff === 'FFIR') throw decodeError('Big-endian WAV (RIFX) is not supported.');
  if ((riff !== 'RIFF' && riff !== 'RF64' && riff !== 'BW64') || fourcc(8) !== 'WAVE') throw decodeError('The data is not a WAV file (no RIFF/WAVE header).');
  const riffSize = view.getUint32(4, true);

  let fmt: FmtChunk | undefined;
  let data: { offset: number; length: number; declared: number | undefined } | undefined;
  let ds64DataSize: number | undefined;
  let pos = 12;
  while (pos + 8 <= buf.length) {
    const id = fourcc(pos);
    const size = view.getUint32(pos + 4, true);
    const body = pos + 8;
    const available = buf.length - body;
    if (id === 'data' && data === undefined) {
      const declared = size === UNKNOWN_SIZE && ds64DataSize !== undefined ? ds64DataSize : size;
      const unknown = declared === UNKNOWN_SIZE || (declared === 0 && (riffSize === 0 || riffSize === UNKNOWN_SIZE));
      const streaming = unknown || declared > available;
      data = { offset: body, length: streaming ? available : declared, declared: unknown ? undefined : declared };
      if (streaming) break;
    } else if (size > available) {
      break; // A truncated trailing chunk: keep what was parsed before it.
    } else if (id === 'fmt ') {
      fmt = parseFmt(view, body, size);
    } else if (id === 'ds64' && size >= 16) {
      ds64DataSize = view.getUint32(body + 8, true) + view.getUint32(body + 12, true) * 2 ** 32;
    }
    pos = body + size + (size & 1);
  }
  if (fmt === undefined) throw decodeError('The WAV data has no fmt chunk.');
  if (data === undefined) throw decodeError('The WAV data has no data chunk.');
  return { ...fmt, dataOffset: data.offset, dataBytes: data.length, declaredDataBytes: data.declared };
}

/**
 * The format a WAV header declares, for `checkMediaFormat`: its duration from the declared data size
 * (the bytes present for a streaming size).
 */
export function declaredWavFormat(layout: WavLayout): MediaFormat {
  const frameBytes = layout.channels * Math.ceil(layout.bitsPerSample / 8);
  const format = { sampleRate: layout.sampleRate, channels: layout.channels, bitsPerSample: layout.bitsPerSample };
  if (frameBytes === 0 || layout.sampleRate === 0) return format;
  return { ...format, durationSec: (layout.declaredDataBytes ?? layout.dataBytes) / frameBytes / layout.sampleRate };
}

/**
 * Parses a WAV file (see `wavLayout`; pass the layout when already read) and returns the mono
 * mixdown plus facts. Throws TtsError AUDIO_DECODE_FAILED when it is not a WAV it can read.
 */
export function decodeWav(buf: Uint8Array, layout: WavLayout = wavLayout(buf)): DecodedWav {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return decodeSamples(view, layout, layout.dataOffset, layout.dataBytes);
}

function parseFmt(view: DataView, at: number, size: number): FmtChunk {
  if (size < 16) throw decodeError('The WAV fmt chunk is too short.');
  let tag = view.getUint16(at, true);
  const channels = view.getUint16(at + 2, true);
  const sampleRate = view.getUint32(at + 4, true);
  const bitsPerSample = view.getUint16(at + 14, true);
  if (tag === WAVE_FORMAT_EXTENSIBLE) {
    if (size < 40) throw decodeError('The WAVE_FORMAT_EXTENSIBLE fmt chunk is too short.');
    const guid = new Uint8Array(view.buffer, view.byteOffset + at + 24, 16);
    if (!Buffer.from(guid.subarray(2)).equals(SUBFORMAT_GUID_TAIL)) throw decodeError('The WAV sub-format is not supported.');
    tag = guid[0]! | (guid[1]! << 8);
  }
  if (channels === 0) throw decodeError('The WAV file declares zero channels.');
  if (sampleRate === 0) throw decodeError('The WAV file declares a zero sample rate.');
  if (tag === WAVE_FORMAT_PCM) {
    if (bitsPerSample < 1 || bitsPerSample > 32) throw decodeError(`${bitsPerSample}-bit integer WAV is not supported.`);
  } else if (tag === WAVE_FORMAT_IEEE_FLOAT) {
    if (bitsPerSample !== 32 && bitsPerSample !== 64) throw decodeError(`${bitsPerSample}-bit float WAV is not supported.`);
  } else {
    throw decodeError(`The WAV encoding (format tag 0x${tag.toString(16)}) is not supported; send PCM or float samples.`);
  }
  return { tag, channels, sampleRate, bitsPerSample };
}

/** Reads one sample at a byte offset as a float in [-1, 1]. */
type SampleReader = (view: DataView, at: number) => number;

function sampleReader(fmt: FmtChunk): SampleReader {
  if (fmt.tag === WAVE_FORMAT_IEEE_FLOAT) {
    return fmt.bitsPerSample === 32 ? (v, at) => v.getFloat32(at, true) : (v, at) => v.getFloat64(at, true);
  }
  // Integer samples are left-justified in a container of whole bytes; scale by the container width.
  switch (Math.ceil(fmt.bitsPerSample / 8)) {
    case 1:
      return (v, at) => (v.getUint8(at) - 128) / 128;
    case 2:
      return (v, at) => v.getInt16(at, true) / 32768;
    case 3:
      return (v, at) => ((v.getUint8(at) | (v.getUint8(at + 1) << 8) | (v.getInt8(at + 2) << 16)) / 8388608);
    default:
      return (v, at) => v.getInt32(at, true) / 2147483648;
  }
}

function decodeSamples(view: DataView, fmt: FmtChunk, offset: number, length: number): DecodedWav {
  const bytesPerSample = Math.ceil(fmt.bitsPerSample / 8);
  const frameBytes = bytesPerSample * fmt.channels;
  const frames = Math.floor(length / frameBytes);
  const read = sampleReader(fmt);
  const samples = new Float32Array(frames);
  const channels = fmt.channels;
  if (channels === 1) {
    for (let i = 0, at = offset; i < frames; i++, at += frameBytes) samples[i] = read(view, at);
  } else {
    for (let i = 0, at = offset; i < frames; i++) {
      let sum = 0;
      for (let c = 0; c < channels; c++, at += bytesPerSample) sum += read(view, at);
      samples[i] = sum / channels;
    }
  }
  return {
    samples,
    sampleRate: fmt.sampleRate,
    channels,
    bitsPerSample: bytesPerSample * 8,
    format: fmt.tag === WAVE_FORMAT_IEEE_FLOAT ? 'float' : 'pcm',
  };
}

function decodeError(message: string): TtsError {
  return new TtsError('AUDIO_DECODE_FAILED', message);
}
