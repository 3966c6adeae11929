/**
 * The speech request: what a caller asks to be spoken, whatever the protocol, and the platform's
 * form of it (`tts.v1.SpeechSpec`). The bodies of the speech operations (POST /api/tts and POST
 * /api/jobs/tts: TtsRequest or its form; POST /v1/audio/speech: OpenAI's SpeechRequest; POST
 * /api/web/jobs/tts: the web form; the ElevenLabs text-to-speech body with its path and query) are
 * read here into one `SpeechSettings`, fields the body leaves
 * out left undefined so a preset can fill them. `speechRequestOf` then refuses empty text and
 * invalid SSML, reads whether the request clones, resolves the voice once (voices.ts), applies the
 * documented defaults and turns the format into the contract's encoding: the one place the facade
 * converts it.
 */
import type { SpeechSpec } from '@tts/proto/synthesis';
import { encodingOf, isSsml, lexiconMessages, parseSsml, SPEED_RANGE, TtsError, type LexiconEntry } from '@tts/common';
import { checkBitrate, isAudioFormat, isSampleRateSupported, type AudioFormat } from '@tts/common/audio';
import type { QueryOf, Schema } from '../handler-context.js';
import type { Caller } from '../middleware/access.js';
import type { UploadedFile } from '../middleware/uploads.js';
import { resolveVoice, type VoiceContext } from './voices.js';

/** The body field that carries each speech field (for errors that name the caller's field). */
export type FieldNames = Readonly<Partial<Record<keyof SpeechSpec, string>>>;

/** The settings a studio preset can supply. */
export type PresetField = 'voice' | 'engine' | 'speed' | 'format' | 'reference';

/**
 * How a caller asks for speech, protocol aside. Undefined means "not named": a preset's value, or
 * the default, applies. A streaming session sends these once and its text in pieces.
 */
export interface SpeechSettings {
  /** Body field of each speech field, for errors. */
  readonly fields: FieldNames;
  /** A platform voice id (`engine:name`), a bare name or an OpenAI voice name. */
  readonly voice?: string;
  readonly engine?: string;
  /** An OpenAI model id, which names the engine (or none, for OpenAI's own ids). */
  readonly model?: string;
  readonly speed?: number;
  readonly format?: AudioFormat;
  /** Output sample rate, Hz. */
  readonly sampleRate?: number;
  /** Bit rate of a lossy format, kbit/s. @default the format's default for the rate */
  readonly bitrateKbps?: number;
  /** BCP-47 language of the text. */
  readonly language?: string;
  readonly instructions?: string;
  /** The text is spoken as written (no number or date expansion). @default false */
  readonly rawText?: boolean;
  /** The caller wants each word's place in the audio. @default false */
  readonly wordTimings?: boolean;
  /** The request mode as sent (`auto` when absent); null where the protocol has none (OpenAI). */
  readonly mode: string | null;
  /** The consent flag as sent; null when absent. */
  readonly consentConfirmed: boolean | null;
  /** A stored reference clip to clone. */
  readonly referenceId?: string;
  /** A reference clip uploaded with the request, to clone. */
  readonly upload?: UploadedFile;
  /** The caller's studio preset, and which settings it supplies where the request names none. */
  readonly preset?: { readonly id: string; readonly supplies: readonly PresetField[] };
}

/** One request for speech. */
export interface SpeakRequest {
  readonly requestId: string;
  /** The operation, as usage and the consent audit name it (e.g. "POST /v1/audio/speech"). */
  readonly endpoint: string;
  /** What to say: plain text, or SSML when it starts with `<speak>`. */
  readonly text: string;
  readonly settings: SpeechSettings;
}

const TTS_FIELDS: FieldNames = { text: 'text', voice: 'voice', engine: 'engine', speed: 'speed', encoding: 'format', sampleRate: 'sample_rate', language: 'language' };
const OPENAI_FIELDS: FieldNames = { text: 'input', voice: 'voice', engine: 'model', speed: 'speed', encoding: 'response_format', sampleRate: 'sample_rate' };
const WEB_FIELDS: FieldNames = { text: 'text', voice: 'voice', speed: 'speed', encoding: 'format' };
const ELEVENLABS_FIELDS: FieldNames = { text: 'text', voice: 'voice_id', engine: 'model_id', speed: 'speed', encoding: 'output_format', sampleRate: 'output_format', language: 'language_code' };
const WYOMING_FIELDS: FieldNames = { text: 'text', voice: 'voice' };

/** A preset on POST /api/tts supplies all of its voice setup; on the web job form, its voice and speed. */
const TTS_PRESET: readonly PresetField[] = ['voice', 'engine', 'speed', 'format', 'reference'];
const WEB_PRESET: readonly PresetField[] = ['voice', 'speed'];

/** The settings of a TtsRequest, or of its multipart form (`upload`: its `ref_audio`). */
export function ttsSettingsOf(body: Schema<'TtsRequest'> | Schema<'TtsCloneForm'>, upload?: UploadedFile): SpeechSettings {
  if (typeof body.consent_confirmed === 'string') {
    // The form: text values, and only the fields of a clone request.
    const form = body as Schema<'TtsCloneForm'>;
    return { fields: TTS_FIELDS, format: form.format || undefined, mode: form.mode || 'auto', consentConfirmed: formBoolean(form.consent_confirmed) ?? null, referenceId: form.reference_id || undefined, upload };
  }
  const b = body as Schema<'TtsRequest'>;
  return {
    fields: TTS_FIELDS,
    voice: b.voice,
    engine: b.engine,
    speed: b.speed,
    format: b.format,
    sampleRate: b.sample_rate,
    language: b.language,
    rawText: b.normalize === false,
    wordTimings: b.timestamps === true,
    mode: b.mode ?? 'auto',
    consentConfirmed: b.consent_confirmed ?? null,
    referenceId: b.reference_id,
    upload,
    preset: b.preset_id === undefined ? undefined : { id: b.preset_id, supplies: TTS_PRESET },
  };
}

/** The settings of OpenAI's SpeechRequest (its format defaults to mp3, as OpenAI's does). */
export function openAiSettingsOf(body: Schema<'SpeechRequest'>): SpeechSettings {
  return {
    fields: OPENAI_FIELDS,
    voice: body.voice,
    model: body.model,
    speed: body.speed,
    format: body.response_format ?? 'mp3',
    sampleRate: body.sample_rate,
    instructions: body.instructions,
    wordTimings: body.stream_format === 'sse',
    mode: null,
    consentConfirmed: null,
  };
}

/** What ElevenLabs clients get when they name no `output_format` (as ElevenLabs' API). */
export const ELEVENLABS_DEFAULT_OUTPUT_FORMAT = 'mp3_44100_128';

/** An ElevenLabs `output_format` read into the platform's terms. */
export interface OutputFormat {
  readonly format: AudioFormat;
  readonly sampleRate: number;
  /** kbit/s; absent: the format's default. */
  readonly bitrateKbps?: number;
}

/**
 * Reads an ElevenLabs `output_format`, `codec_samplerate` or `codec_samplerate_kbps` (pcm_24000,
 * mp3_44100_128, opus_48000_64, ulaw_8000, ...), the codec one of the platform's formats. Throws, at
 * `loc`: TTS_FORMAT_UNSUPPORTED for another shape or codec, TTS_SAMPLE_RATE_INVALID for a rate the
 * codec does not take (ulaw/alaw: 8000 only), VALIDATION_FAILED for a bit rate it cannot take.
 */
export function parseOutputFormat(value: string, loc: readonly (string | number)[] = ['query', 'output_format']): OutputFormat {
  const m = /^([a-z0-9]{1,8})_(\d{1,6})(?:_(\d{1,4}))?$/.exec(value);
  const codec = m?.[1];
  if (m === null || !isAudioFormat(codec)) {
    throw new TtsError('TTS_FORMAT_UNSUPPORTED', `The output format '${value.slice(0, 40)}' is not supported; use codec_samplerate[_bitrate], e.g. mp3_44100_128, pcm_24000 or ulaw_8000.`, { loc });
  }
  const sampleRate = Number(m[2]);
  if (!isSampleRateSupported(codec, sampleRate)) throw new TtsError('TTS_SAMPLE_RATE_INVALID', `${codec} is not available at ${sampleRate} Hz.`, { loc });
  if (m[3] === undefined) return { format: codec, sampleRate };
  const bitrateKbps = Number(m[3]);
  checkBitrate(codec, bitrateKbps, loc);
  return { format: codec, sampleRate, bitrateKbps };
}

/**
 * The settings of an ElevenLabs text-to-speech request: the path's voice, the body, and the query's
 * `output_format` (default mp3_44100_128) and `optimize_streaming_latency` (4 turns normalization
 * off unless the body asks for it). `wordTimings`: the with-timestamps operations. The voice
 * settings other than `speed`, `seed` and the continuity fields have nothing to drive on the
 * platform's engines and are left out. Throws the refusals of `parseOutputFormat`.
 */
export function elevenLabsSettingsOf(
  voiceId: string,
  body: Schema<'ElevenLabsSpeechRequest'>,
  query: Pick<QueryOf<'elevenLabsConvert'>, 'output_format' | 'optimize_streaming_latency'>,
  wordTimings: boolean,
): SpeechSettings {
  const output = parseOutputFormat(query.output_format ?? ELEVENLABS_DEFAULT_OUTPUT_FORMAT);
  const normalization = body.apply_text_normalization ?? 'auto';
  return {
    fields: ELEVENLABS_FIELDS,
    voice: voiceId,
    model: body.model_id ?? undefined,
    speed: body.voice_settings?.speed ?? undefined,
    format: output.format,
    sampleRate: output.sampleRate,
    bitrateKbps: output.bitrateKbps,
    language: body.language_code ?? undefined,
    rawText: normalization === 'off' || (normalization === 'auto' && query.optimize_streaming_latency === 4),
    wordTimings,
    mode: null,
    consentConfirmed: null,
  };
}

/**
 * The settings of a Wyoming synthesis (`synthesize` or `synthesize-start`): the voice it picked
 * (a voice id of its `info`), as raw 16-bit PCM at the voice's own rate (`sampleRate`), which is
 * what Wyoming's audio chunks carry.
 */
export function wyomingSettingsOf(voice: string, sampleRate: number): SpeechSettings {
  return { fields: WYOMING_FIELDS, voice, format: 'pcm', sampleRate, mode: null, consentConfirmed: null };
}

/** The settings of the web job form (its values are text). Throws TTS_SPEED_OUT_OF_RANGE (422). */
export function webSettingsOf(form: Schema<'WebJobForm'>): SpeechSettings {
  return {
    fields: WEB_FIELDS,
    voice: form.voice,
    speed: formSpeed(form.speed),
    format: form.format,
    mode: form.mode ?? 'auto',
    consentConfirmed: formBoolean(form.consent_confirmed) ?? null,
    referenceId: form.reference_id || undefined,
    preset: form.preset_id ? { id: form.preset_id, supplies: WEB_PRESET } : undefined,
  };
}

/** Where the reference of a clone request comes from: a clip uploaded with it, or a stored one. */
export interface CloneSource {
  readonly upload?: UploadedFile;
  readonly referenceId?: string;
}

/** A request made ready for a node or the job queue. */
export interface SpeechRequest {
  readonly speech: SpeechSpec;
  /** Where its reference clip comes from; undefined when it does not clone. */
  readonly cloning: CloneSource | undefined;
}

/** What making a speech request needs besides the request. */
export interface SpeechContext extends Omit<VoiceContext, 'field'> {
  /** The caller's pronunciation lexicon (with its preset's), carried to the node. */
  readonly lexicon: readonly LexiconEntry[];
  /**
   * The text comes later, in pieces (an interactive session): `text` is empty and not checked here;
   * the node checks each piece. @default false
   */
  readonly textInPieces?: boolean;
}

/**
 * The platform's request to say `text` with `settings` for `caller`: the text checked, whether it
 * clones (and from what), the voice resolved, the documented defaults applied (wav, speed 1, the
 * voice's rate), the format converted to the contract's encoding, the lexicon carried. Throws
 * TTS_TEXT_EMPTY and SSML_INVALID (422), the clone refusals of `cloneSourceOf`, and the voice
 * refusals of `resolveVoice`, in that order.
 */
export async function speechRequestOf(caller: Caller, text: string, settings: SpeechSettings, ctx: SpeechContext): Promise<SpeechRequest> {
  if (ctx.textInPieces !== true) checkText(text, settings.fields);
  const cloning = cloneSourceOf(settings, caller);
  const { voice, engine } = await resolveVoice(settings, { ...ctx, field: settings.fields.voice, modelField: settings.fields.engine });
  const speech: SpeechSpec = {
    text,
    voice,
    engine,
    speed: settings.speed ?? 1,
    encoding: encodingOf(settings.format ?? 'wav'),
    sampleRate: settings.sampleRate ?? 0,
    bitrateKbps: settings.bitrateKbps ?? 0,
    language: settings.language ?? '',
    instructions: settings.instructions ?? '',
    rawText: settings.rawText === true,
    wordTimings: settings.wordTimings === true,
    lexicon: ctx.lexicon.length === 0 ? [] : lexiconMessages(ctx.lexicon),
    // The gateways set the provenance payload from the request id (compliance/provenance.ts).
    watermarkPayload: 0,
    clone: undefined,
  };
  return { speech, cloning };
}

/**
 * Refuses a text that cannot be spoken: TTS_TEXT_EMPTY (422) for empty or white-space text,
 * SSML_INVALID (422) for a text starting with `<speak>` that is not valid SSML of the subset.
 */
function checkText(text: string, fields: FieldNames): void {
  if (text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', `${fields.text} is empty or only white space.`, { loc: ['body', fields.text ?? 'text'] });
  if (isSsml(text)) parseSsml(text, fields.text);
}

/**
 * Where the reference of a request comes from, or undefined when it does not clone (`mode`
 * preset, or auto without a reference). `mode` clone without a reference is VALIDATION_FAILED
 * (422). A stored clip is always the caller's own: a caller that owns none (the browser check
 * alone) gets REFERENCE_NOT_FOUND (404), as for another owner's clip.
 */
function cloneSourceOf(settings: SpeechSettings, caller: Caller): CloneSource | undefined {
  const mode = settings.mode ?? 'auto';
  const referenceId = settings.referenceId === '' ? undefined : settings.referenceId;
  const given = settings.upload !== undefined || referenceId !== undefined;
  if (mode === 'preset' || (mode === 'auto' && !given)) return undefined;
  if (!given) throw new TtsError('VALIDATION_FAILED', 'mode clone needs a reference: reference_id, or ref_audio in a multipart form.', { loc: ['body', 'reference_id'] });
  if (settings.upload === undefined && caller.method !== 'api_key' && caller.method !== 'studio') {
    throw new TtsError('REFERENCE_NOT_FOUND', 'Only an API key or a studio user owns reference clips; the browser check alone cannot clone. Sign in to the studio or use an API key.', { loc: ['body', 'reference_id'] });
  }
  return { ...(settings.upload ? { upload: settings.upload } : {}), ...(referenceId ? { referenceId } : {}) };
}

/** A form's speed text as a number; undefined when absent; TTS_SPEED_OUT_OF_RANGE (422) outside the range. */
export function formSpeed(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const speed = Number(value);
  if (!Number.isFinite(speed) || speed < SPEED_RANGE.min || speed > SPEED_RANGE.max) throw new TtsError('TTS_SPEED_OUT_OF_RANGE', undefined, { loc: ['body', 'speed'] });
  return speed;
}

/** A form's boolean text ("true", "1", "on", "yes" are true); undefined when absent. */
export function formBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  return ['true', '1', 'on', 'yes'].includes(String(value).toLowerCase());
}
