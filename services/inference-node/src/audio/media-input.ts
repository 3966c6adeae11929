/**
 * What the node accepts of media it did not make: the containers it reads, judged from the bytes'
 * magic (never from a name or a content type), the ffmpeg/ffprobe input arguments that force that
 * container and keep the process on its one input, and the ranges of the format parameters.
 * Everything that runs ffmpeg or ffprobe on user bytes takes its input arguments from here.
 */
import { TtsError } from '@tts/common';

/** A container the node reads, with the ffmpeg demuxer forced for it. */
export interface MediaContainer {
  /** Our name of the container. */
  readonly name: 'wav' | 'mp3' | 'aac' | 'ogg' | 'flac' | 'mp4' | 'matroska';
  /**
   * ffmpeg demuxer (`-f`, and the only one `-format_whitelist` allows). None of them opens another
   * input: playlists (hls), concat, sdp/rtp, image2 and the like are not on the list.
   */
  readonly demuxer: string;
}

const CONTAINERS = {
  wav: { name: 'wav', demuxer: 'wav' },
  mp3: { name: 'mp3', demuxer: 'mp3' },
  aac: { name: 'aac', demuxer: 'aac' },
  ogg: { name: 'ogg', demuxer: 'ogg' },
  flac: { name: 'flac', demuxer: 'flac' },
  // The mov demuxer's external references (dref) and absolute paths stay off (its defaults, and forced below).
  mp4: { name: 'mp4', demuxer: 'mov' },
  matroska: { name: 'matroska', demuxer: 'matroska' },
} as const satisfies Record<string, MediaContainer>;

/** Bytes of the head `sniffContainer` reads (after an ID3v2 tag). */
export const SNIFF_BYTES = 16;

/** Size of the ID3v2 tag at the start of `head` (header and footer included), or 0. */
export function id3TagBytes(head: Uint8Array): number {
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return 0;
  const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
  const footer = (head[5]! & 0x10) !== 0 ? 10 : 0;
  return 10 + size + footer;
}

/**
 * The container of a file from its first bytes (`afterId3`: the bytes after an ID3v2 tag, when the
 * head starts with one), or undefined when they are not one the node reads.
 */
export function sniffContainer(head: Uint8Array, afterId3?: Uint8Array): MediaContainer | undefined {
  const at = (i: number): number => head[i] ?? -1;
  const ascii = (from: number, text: string): boolean => [...text].every((c, i) => at(from + i) === c.charCodeAt(0));
  if (id3TagBytes(head) > 0) {
    // An ID3v2 tag precedes MP3 frames (and sometimes FLAC or ADTS): judge what follows it.
    const next = afterId3 ?? head.subarray(id3TagBytes(head));
    if (next.length === 0) return undefined;
    return id3TagBytes(next) > 0 ? undefined : (sniffContainer(next) ?? undefined);
  }
  if ((ascii(0, 'RIFF') || ascii(0, 'RF64') || ascii(0, 'BW64')) && ascii(8, 'WAVE')) return CONTAINERS.wav;
  if (ascii(0, 'OggS')) return CONTAINERS.ogg;
  if (ascii(0, 'fLaC')) return CONTAINERS.flac;
  if (at(0) === 0x1a && at(1) === 0x45 && at(2) === 0xdf && at(3) === 0xa3) return CONTAINERS.matroska;
  if (['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip'].some((box) => ascii(4, box))) return CONTAINERS.mp4;
  if (at(0) === 0xff && (at(1) & 0xf6) === 0xf0 && ((at(2) >> 2) & 0x0f) < 13) return CONTAINERS.aac;
  if (isMpegAudioHeader(at(0), at(1), at(2))) return CONTAINERS.mp3;
  return undefined;
}

/** An MPEG audio frame header: sync, a version and layer that exist, a bit rate and sample rate index that exist. */
function isMpegAudioHeader(b0: number, b1: number, b2: number): boolean {
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return false;
  const version = (b1 >> 3) & 3;
  const layer = (b1 >> 1) & 3;
  const bitrate = (b2 >> 4) & 0x0f;
  const rate = (b2 >> 2) & 3;
  return version !== 1 && layer !== 0 && bitrate !== 0x0f && rate !== 3;
}

/** The error for bytes that are not an accepted container. */
export function unsupportedContainer(): TtsError {
  return new TtsError('AUDIO_CONTAINER_UNSUPPORTED');
}

/**
 * ffmpeg/ffprobe input options for one input (`-i` last): the container forced, only its demuxer
 * allowed (nested inputs included), only the input's own protocol (`file` for a path, `pipe` for
 * stdin), no external references.
 */
export function mediaInputArgs(container: MediaContainer, input: { readonly path: string } | 'pipe'): string[] {
  const extra = container.demuxer === 'mov' ? ['-enable_drefs', '0', '-use_absolute_path', '0'] : [];
  return [
    '-f', container.demuxer,
    '-format_whitelist', container.demuxer,
    '-protocol_whitelist', input === 'pipe' ? 'pipe' : 'file',
    ...extra,
    '-i', input === 'pipe' ? 'pipe:0' : `file:${input.path}`,
  ];
}

/** The accepted ranges of format parameters of media the node reads. */
export const MEDIA_LIMITS = Object.freeze({
  /** Lowest sample rate, Hz (ADTS's lowest is 7350; lower rates would cost upsampling work per byte). */
  minSampleRate: 4000,
  /** Highest sample rate, Hz. */
  maxSampleRate: 192_000,
  maxChannels: 8,
  minBitsPerSample: 8,
  maxBitsPerSample: 64,
  /** Longest duration a file may declare or hold, s (a 25 MiB upload at 8 kb/s lasts 7.3 h). */
  maxDurationSec: 6 * 3600,
} as const);

/** Format parameters decoded or declared by a file; absent ones are not known (yet). */
export interface MediaFormat {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample?: number;
  readonly durationSec?: number;
}

/** Throws AUDIO_FORMAT_OUT_OF_RANGE when a parameter is outside MEDIA_LIMITS; call before any work sized by them. */
export function checkMediaFormat(format: MediaFormat): void {
  const l = MEDIA_LIMITS;
  const fail = (message: string): never => {
    throw new TtsError('AUDIO_FORMAT_OUT_OF_RANGE', message);
  };
  if (!Number.isInteger(format.sampleRate) || format.sampleRate < l.minSampleRate || format.sampleRate > l.maxSampleRate) {
    fail(`The audio declares a sample rate of ${String(format.sampleRate)} Hz; accepted: ${l.minSampleRate} to ${l.maxSampleRate} Hz.`);
  }
  if (!Number.isInteger(format.channels) || format.channels < 1 || format.channels > l.maxChannels) {
    fail(`The audio declares ${String(format.channels)} channels; accepted: 1 to ${l.maxChannels} channels.`);
  }
  const bits = format.bitsPerSample;
  if (bits !== undefined && (!Number.isInteger(bits) || bits < l.minBitsPerSample || bits > l.maxBitsPerSample)) {
    fail(`The audio declares ${String(bits)} bits per sample; accepted: ${l.minBitsPerSample} to ${l.maxBitsPerSample} bits.`);
  }
  const duration = format.durationSec;
  if (duration !== undefined && !(duration >= 0 && duration <= l.maxDurationSec)) {
    fail(`The audio declares a duration of ${Number.isFinite(duration) ? `${Math.round(duration)} s` : String(duration)}; accepted: at most ${l.maxDurationSec} s.`);
  }
}
