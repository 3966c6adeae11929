/**
 * Decoding and inspecting audio with ffmpeg/ffprobe (uploads to analyse; tests). Every run reads a
 * container sniffed from the bytes and forced (media-input.ts), keeps a bounded output, and checks
 * the format parameters against MEDIA_LIMITS before work sized by them.
 */
import { open, stat } from 'node:fs/promises';
import { TtsError } from '@tts/common';
import { checkMediaFormat, id3TagBytes, MEDIA_LIMITS, mediaInputArgs, SNIFF_BYTES, sniffContainer, unsupportedContainer, type MediaContainer, type MediaFormat } from './media-input.js';
import { FFMPEG, FFMPEG_QUIET, FFPROBE, runToBuffer } from './media-process.js';
import type { PcmAudio } from './pcm.js';
import { resample } from './resample.js';
import { declaredWavFormat, decodeWav, wavLayout } from './wav.js';

/**
 * Audio to read: bytes (piped to the process) or a file. A file is needed for containers whose
 * index may follow the data (MP4/M4A without "faststart"), which a pipe cannot seek back to.
 */
export type AudioSource = Uint8Array | { readonly path: string };

const EMPTY = new Uint8Array(0);
const stdinOf = (source: AudioSource): Uint8Array => (source instanceof Uint8Array ? source : EMPTY);

/** Packets ffprobe lists at most (their timestamps give the exact length of a shorter file). */
const MAX_PROBE_PACKETS = 20_000;
/** Most bytes of ffprobe output kept (the packets' JSON above stays well under it). */
const MAX_PROBE_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Bytes of a WAV file's start read for its header (chunks before the data chunk fit in it). */
const WAV_HEADER_READ_BYTES = 64 * 1024;

/**
 * The declared format of a WAV source, whose header ffmpeg does not fully report (through a pipe, a
 * data size past the end is not a duration for it); undefined when this reader cannot parse it.
 */
async function declaredWavFormatOf(source: AudioSource): Promise<MediaFormat | undefined> {
  let head: Uint8Array;
  if (source instanceof Uint8Array) {
    head = source.subarray(0, WAV_HEADER_READ_BYTES);
  } else {
    const file = await open(source.path, 'r');
    try {
      const buf = Buffer.alloc(WAV_HEADER_READ_BYTES);
      head = buf.subarray(0, (await file.read(buf, 0, WAV_HEADER_READ_BYTES, 0)).bytesRead);
    } finally {
      await file.close();
    }
  }
  try {
    return declaredWavFormat(wavLayout(head));
  } catch {
    return undefined;
  }
}

/** The container of `source`, from its first bytes (and those after an ID3v2 tag). Throws AUDIO_CONTAINER_UNSUPPORTED. */
async function containerOf(source: AudioSource): Promise<MediaContainer> {
  let head: Uint8Array;
  let afterId3: Uint8Array | undefined;
  if (source instanceof Uint8Array) {
    head = source.subarray(0, SNIFF_BYTES);
    const skip = id3TagBytes(head);
    if (skip > 0) afterId3 = source.subarray(skip, skip + SNIFF_BYTES);
  } else {
    const file = await open(source.path, 'r');
    try {
      head = Buffer.alloc(SNIFF_BYTES);
      head = head.subarray(0, (await file.read(head, 0, SNIFF_BYTES, 0)).bytesRead);
      const skip = id3TagBytes(head);
      if (skip > 0) {
        const next = Buffer.alloc(SNIFF_BYTES);
        afterId3 = next.subarray(0, (await file.read(next, 0, SNIFF_BYTES, skip)).bytesRead);
      }
    } finally {
      await file.close();
    }
  }
  const container = sniffContainer(head, afterId3);
  if (container === undefined) throw unsupportedContainer();
  return container;
}

/** ffmpeg/ffprobe input arguments for `source` read as `container`. */
function inputArgs(source: AudioSource, container: MediaContainer): string[] {
  return mediaInputArgs(container, source instanceof Uint8Array ? 'pipe' : source);
}

/** Failures of the process become AUDIO_DECODE_FAILED (ffmpeg's stderr in `cause`); catalogue errors pass. */
function decodeFailure(error: unknown): TtsError {
  return error instanceof TtsError ? error : new TtsError('AUDIO_DECODE_FAILED', undefined, { cause: error });
}

const outputTooLarge = (): TtsError => new TtsError('AUDIO_FORMAT_OUT_OF_RANGE', 'The audio decodes to more data than its declared format and length allow.');

/** What `probeAudio` reports about the first audio stream. */
export interface AudioProbe {
  /** ffprobe's container name, e.g. 'mp3', 'ogg', 'aac' (ADTS), 'flac', 'wav'. */
  readonly formatName: string;
  /** ffprobe's codec name, e.g. 'mp3', 'opus', 'aac', 'flac', 'pcm_s16le'. */
  readonly codec: string;
  /** Stream sample rate (Hz); Opus always reports its 48000 Hz decoding rate. */
  readonly sampleRate: number;
  readonly channels: number;
  /**
   * Playable duration (s) from the packet timestamps (end of the last packet minus the first
   * non-negative timestamp) when the file has fewer than MAX_PROBE_PACKETS packets, else the larger
   * of the stream or container duration (for ADTS and mp3 without a header, estimated from the bit
   * rate) and the listed packets' duration scaled to the whole size; 0 when unknown. Includes codec
   * padding that the container does not mark for removal (mp3 without a LAME tag, ADTS).
   */
  readonly durationSec: number;
}

/** Options of decodeWithFfmpeg. */
export interface DecodeOptions {
  /** Resample to this rate. @default the stream's rate */
  readonly sampleRate?: number;
  /** Decode at most this many seconds. */
  readonly maxSeconds?: number;
  /** What `probeAudio` said of the source, when the caller has probed it already. @default probed here */
  readonly probe?: AudioProbe;
  readonly signal?: AbortSignal;
}

/**
 * Decodes an accepted container (media-input.ts) to mono float (the mean of the channels) at its
 * native rate, or at `sampleRate` through this module's resampler. The source is probed first (its
 * rate, channels and duration checked against MEDIA_LIMITS), and the decoded output is bounded by
 * them. Throws TtsError AUDIO_CONTAINER_UNSUPPORTED for other bytes, AUDIO_FORMAT_OUT_OF_RANGE when
 * the format or the decoded size is out of range, AUDIO_DECODE_FAILED when ffmpeg cannot decode it
 * (ffmpeg's stderr in `cause`).
 */
export async function decodeWithFfmpeg(source: AudioSource, options: DecodeOptions = {}): Promise<PcmAudio> {
  const probe = options.probe ?? (await probeAudio(source, options.signal));
  const container = await containerOf(source);
  const limit = options.maxSeconds === undefined ? [] : ['-t', String(options.maxSeconds)];
  // The mean of the channels ('<' makes pan's gains sum to 1; ffmpeg's own `-ac 1` would sum stereo
  // at -3 dB each, louder than the mean and possibly above 1), so the output is mono.
  const mix = probe.channels > 1 ? ['-af', `pan=mono|c0<${Array.from({ length: probe.channels }, (_, c) => `c${c}`).join('+')}`] : [];
  const args = [...FFMPEG_QUIET, ...inputArgs(source, container), '-map', '0:a:0', ...limit, ...mix, '-c:a', 'pcm_f32le', '-f', 'wav', 'pipe:1'];
  // A second of slack and a header: a stream whose format changes midway cannot make more than this.
  const seconds = Math.min(options.maxSeconds ?? MEDIA_LIMITS.maxDurationSec, MEDIA_LIMITS.maxDurationSec) + 1;
  const maxOutputBytes = Math.ceil(seconds * probe.sampleRate) * 4 + 64 * 1024;
  let wav: Buffer;
  try {
    wav = await runToBuffer(FFMPEG, args, stdinOf(source), options.signal, { maxOutputBytes, overflowError: outputTooLarge });
  } catch (error) {
    throw decodeFailure(error);
  }
  const decoded = decodeWav(wav);
  checkMediaFormat({ sampleRate: decoded.sampleRate, channels: decoded.channels });
  const audio: PcmAudio = { samples: decoded.samples, sampleRate: decoded.sampleRate };
  return options.sampleRate === undefined ? audio : resample(audio, options.sampleRate);
}

/**
 * ffprobe facts about the first audio stream of an accepted container: container name, codec, sample
 * rate, channels, duration in seconds (see `AudioProbe.durationSec`). Throws TtsError
 * AUDIO_CONTAINER_UNSUPPORTED for other bytes, AUDIO_FORMAT_OUT_OF_RANGE when a parameter is out of
 * MEDIA_LIMITS, AUDIO_DECODE_FAILED when ffprobe cannot read it or it has no audio stream.
 */
export async function probeAudio(source: AudioSource, signal?: AbortSignal): Promise<AudioProbe> {
  const container = await containerOf(source);
  if (container.name === 'wav') {
    const declared = await declaredWavFormatOf(source);
    if (declared !== undefined) checkMediaFormat(declared);
  }
  const args = [
    '-hide_banner', '-loglevel', 'error', '-select_streams', 'a:0', '-of', 'json',
    '-read_intervals', `%+#${MAX_PROBE_PACKETS}`,
    '-show_entries', 'format=format_name,duration:stream=codec_name,sample_rate,channels,duration,time_base:packet=pts,duration,pos,size',
    ...inputArgs(source, container),
  ];
  let json: unknown;
  try {
    const out = await runToBuffer(FFPROBE, args, stdinOf(source), signal, { maxOutputBytes: MAX_PROBE_OUTPUT_BYTES });
    json = JSON.parse(out.toString('utf8'));
  } catch (error) {
    throw decodeFailure(error);
  }
  const root = record(json);
  const stream = record(array(root.streams)[0]);
  const format = record(root.format);
  const codec = text(stream.codec_name);
  const sampleRate = num(stream.sample_rate);
  if (codec === undefined || sampleRate === undefined) throw new TtsError('AUDIO_DECODE_FAILED', 'The data has no audio stream.');
  const packets = array(root.packets);
  const timeBase = text(stream.time_base);
  const declared = num(stream.duration) ?? num(format.duration);
  let durationSec: number;
  if (packets.length < MAX_PROBE_PACKETS) {
    // All packets listed: their timestamps are exact.
    durationSec = packetDuration(packets, timeBase) ?? declared ?? 0;
  } else {
    // The first packets only: the container's (or the bit rate's) estimate, and never less than
    // what the listed packets, scaled to the whole size, make (a pipe has no estimate of its own).
    durationSec = Math.max(declared ?? 0, scaledPacketDuration(packets, timeBase, await sizeOf(source)) ?? 0);
  }
  const probe: AudioProbe = { formatName: text(format.format_name) ?? 'unknown', codec, sampleRate, channels: num(stream.channels) ?? 0, durationSec };
  // What the header declares is checked too, whatever the packets say.
  checkMediaFormat({ ...probe, ...(declared === undefined ? {} : { durationSec: Math.max(declared, durationSec) }) });
  return probe;
}

/** Duration covered by the packets: end of the last minus the first non-negative start (pre-skip is not played). */
function packetDuration(packets: unknown[], timeBase: string | undefined): number | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(timeBase ?? '');
  if (match === null || packets.length === 0) return undefined;
  let first = Infinity;
  let end = -Infinity;
  for (const packet of packets) {
    const p = record(packet);
    const pts = num(p.pts);
    if (pts === undefined) continue;
    first = Math.min(first, pts);
    end = Math.max(end, pts + (num(p.duration) ?? 0));
  }
  if (!Number.isFinite(first)) return undefined;
  return ((end - Math.max(0, first)) * Number(match[1])) / Number(match[2]);
}

/** Duration of the listed packets scaled by the share of the source's bytes they span. */
function scaledPacketDuration(packets: unknown[], timeBase: string | undefined, totalBytes: number): number | undefined {
  const covered = packetDuration(packets, timeBase);
  const last = record(packets[packets.length - 1]);
  const end = (num(last.pos) ?? 0) + (num(last.size) ?? 0);
  return covered === undefined || end <= 0 ? undefined : (covered * totalBytes) / end;
}

async function sizeOf(source: AudioSource): Promise<number> {
  return source instanceof Uint8Array ? source.length : (await stat(source.path)).size;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** ffprobe prints numbers as JSON numbers or strings ("24000", "N/A"). */
function num(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
}
