/**
 * Voice naming for clients: OpenAI voice names mapped onto platform voices, the model ids the
 * OpenAI-compatible API accepts, and the one resolution of a request's voice and engine
 * (`resolveVoice`); the node resolves the result to its engine's voice.
 */
import type { Voice } from '@tts/proto/synthesis';
import { TtsError } from '@tts/common';
import type { ClusterSnapshot } from '../cluster/cluster.js';

/** OpenAI's voice names. */
export const OPENAI_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse'] as const;
/** An OpenAI voice name. */
export type OpenAiVoice = (typeof OPENAI_VOICES)[number];

interface AliasRule {
  readonly gender: 'female' | 'male';
  /** Platform voices in order of preference; the first one available is used. */
  readonly candidates: readonly string[];
}

/** Chosen so that the eleven names sound different from each other where the voices allow. */
const ALIASES: Readonly<Record<OpenAiVoice, AliasRule>> = {
  alloy: { gender: 'female', candidates: ['festival:slt', 'flite:slt'] },
  ash: { gender: 'male', candidates: ['flite:rms', 'espeak:en-us'] },
  ballad: { gender: 'male', candidates: ['flite:awb', 'flite:rms'] },
  coral: { gender: 'female', candidates: ['flite:slt', 'festival:slt'] },
  echo: { gender: 'male', candidates: ['flite:kal16', 'flite:rms'] },
  fable: { gender: 'male', candidates: ['espeak:en-gb', 'espeak:en', 'flite:awb'] },
  onyx: { gender: 'male', candidates: ['flite:rms', 'flite:kal16'] },
  nova: { gender: 'female', candidates: ['festival:slt', 'flite:slt'] },
  sage: { gender: 'female', candidates: ['espeak:en-us+f3', 'flite:slt'] },
  shimmer: { gender: 'female', candidates: ['flite:slt', 'festival:slt'] },
  verse: { gender: 'male', candidates: ['espeak:en-us+m3', 'flite:kal16'] },
};

/** OpenAI model ids accepted for compatibility; they use the default alias mapping. */
export const OPENAI_MODELS = ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts'] as const;

/**
 * ElevenLabs' model ids (eleven_multilingual_v2, eleven_flash_v2_5, eleven_v3, ...): accepted, like
 * OpenAI's, as naming no engine, so ElevenLabs clients that always send one keep the voice's engine.
 */
const ELEVENLABS_MODEL = /^eleven_[a-z0-9_]+$/;

const ENGINE_ALIASES: Readonly<Record<string, string>> = { 'espeak-ng': 'espeak' };

function isOpenAiVoice(v: string): v is OpenAiVoice {
  return (OPENAI_VOICES as readonly string[]).includes(v);
}

/** Platform voice used for each OpenAI voice name, given the voices available now. */
export function aliasTable(voices: readonly Voice[], defaultVoice: string): Record<OpenAiVoice, string> {
  const out = {} as Record<OpenAiVoice, string>;
  for (const name of OPENAI_VOICES) out[name] = pickAlias(name, voices, '', defaultVoice);
  return out;
}

function pickAlias(name: OpenAiVoice, voices: readonly Voice[], engine: string, defaultVoice: string): string {
  const rule = ALIASES[name];
  const ids = new Set(voices.map((v) => v.id));
  const pool = engine === '' ? voices : voices.filter((v) => v.engine === engine);
  const preferred = rule.candidates.find((c) => ids.has(c) && (engine === '' || c.startsWith(`${engine}:`)));
  if (preferred) return preferred;
  const english = pool.filter((v) => v.language.toLowerCase().startsWith('en'));
  const byGender = english.find((v) => v.gender === rule.gender) ?? pool.find((v) => v.gender === rule.gender);
  if (byGender) return byGender.id;
  const first = english[0] ?? pool[0];
  if (first) return first.id;
  return defaultVoice;
}

/** Engine named by a model id, or '' for the OpenAI and ElevenLabs compatibility ids. Throws TTS_MODEL_NOT_FOUND. */
function engineOfModel(model: string, engines: readonly string[], field: string): string {
  const m = model.trim().toLowerCase();
  if ((OPENAI_MODELS as readonly string[]).includes(m) || ELEVENLABS_MODEL.test(m)) return '';
  const engine = ENGINE_ALIASES[m] ?? m;
  if (engines.includes(engine)) return engine;
  throw new TtsError('TTS_MODEL_NOT_FOUND', `The model "${model}" does not exist.`, { loc: ['body', field] });
}

/** A voice and engine as a request names them (undefined: not named). */
export interface NamedVoice {
  readonly voice?: string | undefined;
  readonly engine?: string | undefined;
  /** An OpenAI model id, naming the engine. */
  readonly model?: string | undefined;
}

/** What resolving a voice needs. */
export interface VoiceContext {
  /** The cluster's voices and engines, fetched only when a name needs them. */
  readonly snapshot: () => Promise<ClusterSnapshot>;
  /** The platform default voice (what OpenAI names fall back to). */
  readonly defaultVoice: string;
  /**
   * The voice must be one some ready node has (jobs: they run later, so an unknown voice is
   * refused now rather than failing the job). @default false
   */
  readonly mustExist?: boolean;
  /** Body field naming the voice, for errors. @default "voice" */
  readonly field?: string | undefined;
  /** Body field naming the model, for errors. @default "model" */
  readonly modelField?: string | undefined;
}

/**
 * The voice and engine a request speaks with, as sent to the node: an OpenAI model names its
 * engine (TTS_MODEL_NOT_FOUND, 404, when it names none); OpenAI voice names and bare names are
 * resolved against the voices of the ready nodes; a voice id (`engine:name`) passes through for
 * the node to resolve; none named stays '' (the node's default). With `mustExist`, a voice no ready
 * node has is TTS_VOICE_NOT_FOUND (422).
 */
export async function resolveVoice(named: NamedVoice, ctx: VoiceContext): Promise<{ voice: string; engine: string }> {
  let snap: ClusterSnapshot | undefined;
  const snapshot = async (): Promise<ClusterSnapshot> => (snap ??= await ctx.snapshot());
  const engine = named.model === undefined ? named.engine ?? '' : engineOfModel(named.model, (await snapshot()).knownEngines, ctx.modelField ?? 'model');
  let voice = named.voice ?? '';
  if (named.model !== undefined || (voice !== '' && !voice.includes(':'))) voice = resolveClientVoice(voice, engine, (await snapshot()).voices, ctx.defaultVoice);
  if (ctx.mustExist === true && voice !== '') {
    const wanted = voice.toLowerCase();
    const { voices } = await snapshot();
    if (voices.length > 0 && !voices.some((v) => v.id.toLowerCase() === wanted || v.id.toLowerCase().endsWith(`:${wanted}`))) {
      throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${voice}" does not exist.`, { loc: ['body', ctx.field ?? 'voice'] });
    }
  }
  return { voice, engine };
}

/**
 * The platform voice id for a client's voice: OpenAI names are mapped (within `engine` when the
 * model names one); anything else passes through for the node to resolve.
 */
function resolveClientVoice(voice: string, engine: string, voices: readonly Voice[], defaultVoice: string): string {
  const v = voice.trim();
  const lower = v.toLowerCase();
  if (isOpenAiVoice(lower)) return pickAlias(lower, voices, engine, defaultVoice);
  return v;
}
