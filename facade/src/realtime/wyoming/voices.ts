/**
 * The platform's voices in Wyoming's terms: the `info` answer to `describe` (one `tts` program, every
 * voice of the ready nodes with its languages, as wyoming-piper describes its own so Home
 * Assistant's integration takes it), and the voice a `synthesize` picks (`voice.name`, else a voice
 * of `voice.language`, else the default).
 */
import type { Voice } from '@tts/proto/synthesis';
import { SERVICE_NAME, TtsError, VERSION } from '@tts/common';

/** What a synthesis asks for in its `voice` field. */
export interface AskedVoice {
  readonly name?: string;
  readonly language?: string;
}

/** The languages of a voice as BCP-47 tags (its list, else its primary language). */
function languagesOf(v: Voice): string[] {
  const all = v.languages.length > 0 ? v.languages : [v.language];
  return all.filter((l) => l !== '');
}

/**
 * The data of the `info` event: one installed TTS program with every voice (name: the platform voice
 * id that `synthesize` names; description: what Home Assistant shows), and streaming synthesis.
 */
export function infoOf(voices: readonly Voice[]): Record<string, unknown> {
  const attribution = { name: SERVICE_NAME, url: '' };
  const tts = {
    name: SERVICE_NAME,
    description: 'Text to speech of the platform\'s cluster',
    attribution,
    installed: true,
    version: VERSION,
    voices: [...voices]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((v) => ({
        name: v.id,
        description: `${v.name || v.id} (${v.engine})`,
        attribution: { name: v.engine, url: '' },
        installed: true,
        version: null,
        languages: languagesOf(v),
        speakers: null,
      })),
    supports_synthesize_streaming: true,
  };
  return { asr: [], tts: [tts], handle: [], intent: [], wake: [], mic: [], snd: [] };
}

const tag = (language: string): string => language.trim().replace(/_/g, '-').toLowerCase();

/**
 * The voice of a synthesis among the cluster's: the one `asked.name` names (its id, any case; none:
 * TTS_VOICE_NOT_FOUND), else the default voice when it speaks `asked.language` (or none is asked),
 * else the first voice that does, else the default. The default is `defaultVoice` when the cluster
 * has it, else its first voice. No voice at all: TTS_NO_NODE_AVAILABLE.
 */
export function pickVoice(asked: AskedVoice, voices: readonly Voice[], defaultVoice: string): Voice {
  const sorted = [...voices].sort((a, b) => a.id.localeCompare(b.id));
  if (asked.name !== undefined) {
    const wanted = asked.name.trim().toLowerCase();
    const named = sorted.find((v) => v.id.toLowerCase() === wanted);
    if (!named) throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${asked.name.slice(0, 100)}" does not exist; describe lists the voices.`, { loc: ['voice', 'name'] });
    return named;
  }
  const fallback = sorted.find((v) => v.id.toLowerCase() === defaultVoice.toLowerCase()) ?? sorted[0];
  if (!fallback) throw new TtsError('TTS_NO_NODE_AVAILABLE', 'No node with a voice is ready.');
  if (asked.language === undefined || asked.language.trim() === '') return fallback;
  const language = tag(asked.language);
  const speaks = (v: Voice): boolean => languagesOf(v).some((l) => tag(l) === language || tag(l).startsWith(`${language}-`) || language.startsWith(`${tag(l)}-`));
  return speaks(fallback) ? fallback : sorted.find(speaks) ?? fallback;
}
