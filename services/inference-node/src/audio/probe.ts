/** Decoding and inspecting arbitrary audio with ffmpeg/ffprobe (tests, reference-audio validation). */
import { TtsError } from '@tts/common';
import { FFMPEG, FFMPEG_QUIET, FFPROBE, runToBuffer } from './media-process.js';
import type { PcmAudio } from './pcm.js';
import { resample } from './resample.js';
import { decodeWav } from './wav.js';

/**
 * Audio to read: bytes (piped to the process) or a file. A file is needed for containers whose
 * index may follow the data (MP4/M4A without "faststart"), which a pipe cannot seek back to.
 */
export type AudioSource = Uint8Array | { readonly path: string };

const EMPTY = new Uint8Array(0);
const inputOf = (source: AudioSource): string => (source instanceof Uint8Array ? 'pipe:0' : `file:${source.path}`);
const stdinOf = (source: AudioSource): Uint8Array => (source instanceof Uint8Array ? source : EMPTY);

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
   * non-negative timestamp), else the stream or container duration. Includes codec padding that the
   * container does not mark for removal (mp3 without a LAME tag, ADTS).
   */
  readonly durationSec: number;
}

/**
 * Decodes any container ffmpeg reads (through a pipe) to mono float (the mean of the channels) at its
 * native rate, or at `sampleRate` through this module's resampler. Throws TtsError AUDIO_DECODE_FAILED when
 * ffmpeg cannot decode it (ffmpeg's stderr in `cause`).
 */
export async function decodeWithFfmpeg(source: AudioSource, options: { sampleRate?: number; maxSeconds?: number; signal?: AbortSignal } = {}): Promise<PcmAudio> {
  // All channels as float WAV; decodeWav mixes down to their mean, like for WAV input (ffmpeg's own
  // `-ac 1` would sum stereo at -3 dB each, which is louder than the mean and may exceed 1).
  const limit = options.maxSeconds === undefined ? [] : ['-t', String(options.maxSeconds)];
  const args = [...FFMPEG_QUIET, '-i', inputOf(source), '-map', '0:a:0', ...limit, '-c:a', 'pcm_f32le', '-f', 'wav', 'pipe:1'];
  let wav: Buffer;
  try {
    wav = await runToBuffer(FFMPEG, args, stdinOf(source), options.signal);
  } catch (error) {
    if (error instanceof TtsError) throw error;
    throw new TtsError('AUDIO_DECODE_FAILED', undefined, { cause: error });
  }
  const decoded = decodeWav(wav);
  const audio: PcmAudio = { samples: decoded.samples, sampleRate: decoded.sampleRate };
  return options.sampleRate === undefined ? audio : resample(audio, options.sampleRate);
}

/**
 * ffprobe facts about the first audio stream: container name, codec, sample rate, channels, duration
 * in seconds (see `AudioProbe.durationSec`). Throws TtsError AUDIO_DECODE_FAILED when ffprobe cannot
 * read it or it has no audio stream.
 */
export async function probeAudio(source: AudioSource, signal?: AbortSignal): Promise<AudioProbe> {
  const args = [
    '-hide_banner', '-loglevel', 'error', '-select_streams', 'a:0', '-of', 'json',
    '-show_entries', 'format=format_name,duration:stream=codec_name,sample_rate,channels,duration,time_base:packet=pts,duration',
    '-i', inputOf(source),
  ];
  let json: unknown;
  try {
    json = JSON.parse((await runToBuffer(FFPROBE, args, stdinOf(source), signal)).toString('utf8'));
  } catch (error) {
    if (error instanceof TtsError) throw error;
    throw new TtsError('AUDIO_DECODE_FAILED', undefined, { cause: error });
  }
  const root = record(json);
  const stream = record(array(root.streams)[0]);
  const format = record(root.format);
  const codec = text(stream.codec_name);
  const sampleRate = num(stream.sample_rate);
  if (codec === undefined || sampleRate === undefined) throw new TtsError('AUDIO_DECODE_FAILED', 'The data has no audio stream.');
  return {
    formatName: text(format.format_name) ?? 'unknown',
    codec,
    sampleRate,
    channels: num(stream.channels) ?? 0,
    durationSec: packetDuration(array(root.packets), text(stream.time_base)) ?? num(stream.duration) ?? num(format.duration) ?? 0,
  };
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
