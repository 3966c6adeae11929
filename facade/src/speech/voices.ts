/**
 * Voice naming for clients: OpenAI voice names mapped onto platform voices, and the model ids the
 * OpenAI-compatible API accepts.
 */
import type { Voice } from '@tts/proto/synthesis';
import { TtsError } from '@tts/common';

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

/** Engine named by a model id, or '' for the OpenAI compatibility ids. Throws TTS_MODEL_NOT_FOUND. */
export function engineOfModel(model: string, engines: readonly string[]): string {
  const m = model.trim().toLowerCase();
  if ((OPENAI_MODELS as readonly string[]).includes(m)) return '';
  const engine = ENGINE_ALIASES[m] ?? m;
  if (engines.includes(engine)) return engine;
  throw new TtsError('TTS_MODEL_NOT_FOUND', `The model "${model}" does not exist.`, { loc: ['body', 'model'] });
}

/**
 * The platform voice id for a client's voice: OpenAI names are mapped (within `engine` when the
 * model names one); anything else passes through for the node to resolve.
 */
export function resolveClientVoice(voice: string, engine: string, voices: readonly Voice[], defaultVoice: string): string {
  const v = voice.trim();
  const lower = v.toLowerCase();
  if (isOpenAiVoice(lower)) return pickAlias(lower, voices, engine, defaultVoice);
  return v;
}
