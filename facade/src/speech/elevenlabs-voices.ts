/**
 * The platform's voices as ElevenLabs' API lists them (GET /v1/voices, GET /v2/voices): each
 * voice of the ready engines as an ElevenLabs premade voice whose `voice_id` is the platform id,
 * and the search and paging of /v2/voices.
 */
import type { Voice } from '@tts/proto/synthesis';
import { TtsError } from '@tts/common';

/** ElevenLabs' voice settings of a voice: its defaults (the platform's engines read only `speed`). */
const DEFAULT_SETTINGS = Object.freeze({ stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true, speed: 1 });

/** One voice as ElevenLabs' API describes it. */
export function elevenLabsVoiceOf(v: Voice): Record<string, unknown> {
  const labels: Record<string, string> = { language: v.language, gender: v.gender, engine: v.engine, quality: v.quality, sample_rate: String(v.sampleRate) };
  const locales = v.languages.length > 0 ? v.languages : [v.language];
  return {
    voice_id: v.id,
    name: v.name || v.id,
    category: 'premade',
    labels: Object.fromEntries(Object.entries(labels).filter(([, value]) => value !== '' && value !== '0')),
    description: v.description,
    preview_url: null,
    available_for_tiers: [],
    settings: DEFAULT_SETTINGS,
    high_quality_base_model_ids: [v.engine],
    verified_languages: locales.filter((l) => l !== '').map((locale) => ({ language: locale.split('-')[0]!.toLowerCase(), model_id: v.engine, locale })),
    is_owner: false,
    is_legacy: false,
    is_mixed: false,
  };
}

/** What GET /v2/voices filters and pages by (its other filters change nothing on the platform). */
export interface VoiceSearch {
  readonly search?: string;
  /** BCP-47 prefixes; a voice speaking any of them matches. */
  readonly language?: readonly string[];
  readonly gender?: string;
  readonly voiceIds?: readonly string[];
  /** @default 10 */
  readonly pageSize?: number;
  readonly nextPageToken?: string;
}

/** One page of a search. */
export interface VoicePage {
  readonly voices: readonly Voice[];
  readonly totalCount: number;
  /** The token of the next page; undefined on the last. */
  readonly nextPageToken: string | undefined;
}

const DEFAULT_PAGE_SIZE = 10;

/** The token of the page starting at `offset` (opaque to clients). */
const tokenOf = (offset: number): string => Buffer.from(`voices:${offset}`).toString('base64url');

/** The offset a page token names; VALIDATION_FAILED for one this server did not give. */
function offsetOf(token: string | undefined): number {
  if (token === undefined || token === '') return 0;
  const m = /^voices:(\d{1,9})$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (m === null) throw new TtsError('VALIDATION_FAILED', 'next_page_token is not one this server gave.', { loc: ['query', 'next_page_token'] });
  return Number(m[1]);
}

/** The voices matching `q`, sorted by id, one page of them. Throws VALIDATION_FAILED for a page token it did not give. */
export function searchVoices(voices: readonly Voice[], q: VoiceSearch): VoicePage {
  const search = q.search?.trim().toLowerCase() ?? '';
  const languages = (q.language ?? []).map((l) => l.toLowerCase());
  const gender = q.gender?.toLowerCase() ?? '';
  const ids = new Set((q.voiceIds ?? []).map((id) => id.toLowerCase()));
  const matching = voices
    .filter((v) => search === '' || [v.id, v.name, v.description, v.language, ...v.languages].some((field) => field.toLowerCase().includes(search)))
    .filter((v) => languages.length === 0 || [v.language, ...v.languages].some((l) => languages.some((prefix) => l.toLowerCase().startsWith(prefix))))
    .filter((v) => gender === '' || v.gender.toLowerCase() === gender)
    .filter((v) => ids.size === 0 || ids.has(v.id.toLowerCase()))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const offset = offsetOf(q.nextPageToken);
  const end = offset + (q.pageSize ?? DEFAULT_PAGE_SIZE);
  return { voices: matching.slice(offset, end), totalCount: matching.length, nextPageToken: end < matching.length ? tokenOf(end) : undefined };
}
