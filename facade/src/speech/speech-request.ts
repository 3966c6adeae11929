/**
 * The one mapping from an HTTP body that asks for speech to the platform's speech request
 * (`tts.v1.SpeechSpec`): POST /api/tts and POST /api/jobs/tts (TtsRequest), POST /v1/audio/speech
 * (OpenAI's SpeechRequest) and POST /api/web/jobs/tts (the web form). Empty text and invalid SSML
 * are refused here, once, before any node work; voice names are resolved against the ready nodes; the documented defaults are applied.
 */
import type { SpeechSpec } from '@tts/proto/synthesis';
import { encodingOf, isSsml, lexiconMessages, parseSsml, SPEED_RANGE, TtsError, type LexiconEntry } from '@tts/common';
import type { AudioFormat } from '@tts/common/audio';
import type { Schema } from '../handler-context.js';
import type { ClusterView } from '../cluster/cluster.js';
import { engineOfModel, resolveClientVoice } from './voices.js';

/** A body that asks for speech, by its family. */
export type SpeechBody =
  | { readonly kind: 'tts'; readonly body: Schema<'TtsRequest'> }
  | { readonly kind: 'openai'; readonly body: Schema<'SpeechRequest'> }
  | { readonly kind: 'web'; readonly body: Schema<'WebJobForm'> };

/** The body field that carries each speech field (for errors that name the caller's field). */
export type FieldNames = Readonly<Partial<Record<keyof SpeechSpec, string>>>;

/** A speech request as the facade forwards it. */
export interface SpeechRequest {
  readonly speech: SpeechSpec;
  /** The format of `speech.encoding`. */
  readonly format: AudioFormat;
  /** The request mode as sent (`auto` when absent); null where the family has none (OpenAI). */
  readonly mode: string | null;
  /** The consent flag as sent; null when absent. */
  readonly consentConfirmed: boolean | null;
  /** Body field of each speech field. */
  readonly fields: FieldNames;
}

const TTS_FIELDS: FieldNames = { text: 'text', voice: 'voice', engine: 'engine', speed: 'speed', encoding: 'format', sampleRate: 'sample_rate', language: 'language' };
const OPENAI_FIELDS: FieldNames = { text: 'input', voice: 'voice', engine: 'model', speed: 'speed', encoding: 'response_format', sampleRate: 'sample_rate' };
const WEB_FIELDS: FieldNames = { text: 'text', voice: 'voice', speed: 'speed', encoding: 'format' };

/** Where a speech request resolves voice names. */
export interface SpeechContext {
  readonly cluster: ClusterView;
  /** The platform default voice (what OpenAI names fall back to). */
  readonly defaultVoice: string;
  /** The caller's pronunciation lexicon (with its preset's), carried to the node. @default none */
  readonly lexicon?: readonly LexiconEntry[];
}

/**
 * The speech request of `input`. Throws TTS_TEXT_EMPTY (422) for empty or white-space text,
 * SSML_INVALID (422) for a text starting with `<speak>` that is not valid SSML of the subset, and
 * TTS_MODEL_NOT_FOUND (404) for an OpenAI `model` that names no engine.
 */
export async function speechRequestOf(input: SpeechBody, ctx: SpeechContext): Promise<SpeechRequest> {
  const request = await requestOf(input, ctx);
  if (ctx.lexicon === undefined || ctx.lexicon.length === 0) return request;
  return { ...request, speech: { ...request.speech, lexicon: lexiconMessages(ctx.lexicon) } };
}

/** The speech request of `input` without a lexicon. */
async function requestOf(input: SpeechBody, ctx: SpeechContext): Promise<SpeechRequest> {
  const fields = input.kind === 'tts' ? TTS_FIELDS : input.kind === 'openai' ? OPENAI_FIELDS : WEB_FIELDS;
  const text = input.kind === 'openai' ? input.body.input : input.body.text;
  if (text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', `${fields.text} is empty or only white space.`, { loc: ['body', fields.text ?? 'text'] });
  if (isSsml(text)) parseSsml(text, fields.text);
  switch (input.kind) {
    case 'openai': {
      const b = input.body;
      const snap = await ctx.cluster.snapshot();
      const engine = engineOfModel(b.model, snap.knownEngines);
      const format = b.response_format ?? 'mp3';
      const voice = resolveClientVoice(b.voice, engine, snap.voices, ctx.defaultVoice);
      return { speech: { ...spec(text, voice, engine, b.speed, format, b.sample_rate, '', b.instructions, false), wordTimings: b.stream_format === 'sse' }, format, mode: null, consentConfirmed: null, fields };
    }
    case 'tts': {
      const b = input.body;
      const engine = b.engine ?? '';
      const format = b.format ?? 'wav';
      const voice = await platformVoice(ctx, b.voice ?? '', engine);
      return {
        speech: { ...spec(text, voice, engine, b.speed, format, b.sample_rate, b.language, undefined, b.normalize === false), wordTimings: b.timestamps === true },
        format,
        mode: b.mode ?? 'auto',
        consentConfirmed: b.consent_confirmed ?? null,
        fields,
      };
    }
    case 'web': {
      const b = input.body;
      const voice = await platformVoice(ctx, b.voice ?? '', '');
      const format = b.format ?? 'wav';
      return { speech: spec(text, voice, '', formSpeed(b.speed), format, undefined, undefined, undefined, false), format, mode: b.mode ?? 'auto', consentConfirmed: formBoolean(b.consent_confirmed) ?? null, fields };
    }
  }
}

function spec(
  text: string,
  voice: string,
  engine: string,
  speed: number | undefined,
  format: AudioFormat,
  sampleRate: number | undefined,
  language: string | undefined,
  instructions: string | undefined,
  rawText: boolean,
): SpeechSpec {
  // The gateways set the provenance payload from the request id (provenance.ts).
  return { text, voice, engine, speed: speed ?? 1, encoding: encodingOf(format), sampleRate: sampleRate ?? 0, language: language ?? '', instructions: instructions ?? '', rawText, watermarkPayload: 0, clone: undefined, wordTimings: false, lexicon: [] };
}

/**
 * The platform voice id for a request's voice: ids with an engine prefix pass through; OpenAI
 * names and bare names are resolved against the voices of the ready nodes.
 */
async function platformVoice(ctx: SpeechContext, voice: string, engine: string): Promise<string> {
  if (voice === '' || voice.includes(':')) return voice;
  const snap = await ctx.cluster.snapshot();
  return resolveClientVoice(voice, engine, snap.voices, ctx.defaultVoice);
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
