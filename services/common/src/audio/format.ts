/** Output audio formats: names, MIME types and the sample rates each codec takes. */
import { TtsError } from '../errors/tts-error.js';
import { BITRATE_RANGE_KBPS, SAMPLE_RATE_RANGE } from '../limits.js';

/**
 * An output container/codec a client can ask for (OpenAI's `response_format`, and the telephony
 * formats: `ulaw` and `alaw` are headerless G.711 at 8 kHz, as Twilio and SIP carry them).
 */
export type AudioFormat = 'wav' | 'pcm' | 'mp3' | 'opus' | 'aac' | 'flac' | 'ulaw' | 'alaw';

/** Every supported format, in the order they are documented. */
export const AUDIO_FORMATS: readonly AudioFormat[] = Object.freeze(['wav', 'pcm', 'mp3', 'opus', 'aac', 'flac', 'ulaw', 'alaw']);

const CONTENT_TYPES = {
  wav: 'audio/wav',
  pcm: 'audio/pcm',
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  ulaw: 'audio/basic',
  alaw: 'audio/x-alaw-basic',
} as const satisfies Record<AudioFormat, string>;

/** Lowest output sample rate any format accepts (Hz). */
export const MIN_SAMPLE_RATE = SAMPLE_RATE_RANGE.min;
/** Highest output sample rate any format accepts (Hz). */
export const MAX_SAMPLE_RATE = SAMPLE_RATE_RANGE.max;
/** Default rate of raw `pcm` output, as OpenAI's API (24 kHz, 16-bit, mono). */
export const PCM_DEFAULT_SAMPLE_RATE = 24000;

/** Rates MPEG audio (MPEG-1/2/2.5) and the ADTS AAC encoder take within 8..48 kHz. */
const MPEG_RATES: readonly number[] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];
/** Rates libopus takes; Ogg Opus always decodes at 48 kHz. */
const OPUS_RATES: readonly number[] = [8000, 12000, 16000, 24000, 48000];

/** G.711 is defined at 8 kHz: telephony carries nothing else. */
const G711_RATES: readonly number[] = [8000];

/** Fixed rate lists per format; formats absent here take any integer rate in range. */
const FIXED_RATES: Partial<Record<AudioFormat, readonly number[]>> = { mp3: MPEG_RATES, aac: MPEG_RATES, opus: OPUS_RATES, ulaw: G711_RATES, alaw: G711_RATES };

/**
 * MIME type: wav audio/wav, pcm audio/pcm, mp3 audio/mpeg, opus audio/ogg (Opus in Ogg), aac
 * audio/aac (ADTS), flac audio/flac, ulaw audio/basic (RFC 2046), alaw audio/x-alaw-basic.
 */
export function contentTypeOf(format: AudioFormat): string {
  return CONTENT_TYPES[format];
}

/** True when `value` names a supported format (exact, lower case). */
export function isAudioFormat(value: unknown): value is AudioFormat {
  return typeof value === 'string' && Object.hasOwn(CONTENT_TYPES, value);
}

/** Parses a format name (case-insensitive, surrounding white space ignored); throws TtsError TTS_FORMAT_UNSUPPORTED with `loc`. */
export function parseAudioFormat(value: string, loc: readonly (string | number)[] = []): AudioFormat {
  const name = value.trim().toLowerCase();
  if (isAudioFormat(name)) return name;
  throw new TtsError('TTS_FORMAT_UNSUPPORTED', `The audio format '${value.slice(0, 40)}' is not supported; use one of ${AUDIO_FORMATS.join(', ')}.`, { loc });
}

/** True when the encoder for `format` takes `rate` (an integer within 8000..48000 Hz, and in the codec's list if it has one). */
export function isSampleRateSupported(format: AudioFormat, rate: number): boolean {
  if (!Number.isInteger(rate) || rate < MIN_SAMPLE_RATE || rate > MAX_SAMPLE_RATE) return false;
  const fixed = FIXED_RATES[format];
  return fixed === undefined || fixed.includes(rate);
}

/** The rate `format` takes that is nearest to `rate` (ties go to the higher rate, which keeps more bandwidth). */
export function nearestSupportedRate(format: AudioFormat, rate: number): number {
  assertPositiveRate(rate, 'rate');
  const fixed = FIXED_RATES[format];
  if (fixed === undefined) return Math.min(MAX_SAMPLE_RATE, Math.max(MIN_SAMPLE_RATE, Math.round(rate)));
  let best = fixed[0]!;
  for (const candidate of fixed) {
    if (Math.abs(candidate - rate) <= Math.abs(best - rate)) best = candidate;
  }
  return best;
}

/**
 * Output sample rate for a format: `requested` (0/undefined = default) validated for the format.
 * Defaults: pcm 24000 (as OpenAI); opus the supported rate nearest the native one (no needless upsampling); wav/flac/mp3/aac the engine's `nativeRate` if the codec
 * takes it, else the nearest rate it takes; ulaw/alaw 8000. Out of range (<8000 or >48000), non-integer, or not taken by
 * the codec (mp3/aac: 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000; opus: 8000, 12000,
 * 16000, 24000, 48000; ulaw/alaw: 8000) → TtsError TTS_SAMPLE_RATE_INVALID at `loc`.
 */
export function outputSampleRate(format: AudioFormat, nativeRate: number, requested?: number, loc: readonly (string | number)[] = []): number {
  assertPositiveRate(nativeRate, 'nativeRate');
  if (requested === undefined || requested === 0) {
    if (format === 'pcm') return PCM_DEFAULT_SAMPLE_RATE;
    return isSampleRateSupported(format, nativeRate) ? nativeRate : nearestSupportedRate(format, nativeRate);
  }
  if (isSampleRateSupported(format, requested)) return requested;
  const fixed = FIXED_RATES[format];
  const allowed = fixed === undefined ? `an integer from ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE} Hz` : `one of ${fixed.join(', ')} Hz`;
  throw new TtsError('TTS_SAMPLE_RATE_INVALID', `The sample rate ${String(requested)} is not supported for ${format}; use ${allowed}.`, { loc });
}

/** The formats whose bit rate a client can choose (the others are lossless or fixed: G.711 is 64 kbit/s). */
const LOSSY_FORMATS: readonly AudioFormat[] = ['mp3', 'opus', 'aac'];

/**
 * Refuses a bit rate `format` cannot take: VALIDATION_FAILED at `loc` for a bit rate of a format
 * without one (wav, pcm, flac, ulaw, alaw) or outside BITRATE_RANGE_KBPS (8 to 320 kbit/s).
 */
export function checkBitrate(format: AudioFormat, kbps: number, loc: readonly (string | number)[] = []): void {
  if (!LOSSY_FORMATS.includes(format)) throw new TtsError('VALIDATION_FAILED', `${format} has no bit rate to choose; only ${LOSSY_FORMATS.join(', ')} take one.`, { loc });
  if (!Number.isInteger(kbps) || kbps < BITRATE_RANGE_KBPS.min || kbps > BITRATE_RANGE_KBPS.max) {
    throw new TtsError('VALIDATION_FAILED', `The bit rate ${String(kbps)} kbit/s is out of range; use ${BITRATE_RANGE_KBPS.min} to ${BITRATE_RANGE_KBPS.max}.`, { loc });
  }
}

function assertPositiveRate(rate: number, name: string): void {
  if (!Number.isFinite(rate) || rate <= 0) throw new RangeError(`${name} must be a positive number of Hz, got ${String(rate)}`);
}
