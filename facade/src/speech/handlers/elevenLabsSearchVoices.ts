import { elevenLabsVoiceOf, searchVoices } from '../elevenlabs-voices.js';
import { handler } from '../../handler-context.js';

/** GET /v2/voices: ElevenLabs-compatible voice search, a page at a time. */
export const elevenLabsSearchVoices = handler('elevenLabsSearchVoices', ['cluster'], async ({ query, res, deps }) => {
  const page = searchVoices((await deps.cluster.snapshot()).voices, {
    search: query.search,
    language: query.language,
    gender: query.gender,
    voiceIds: query.voice_ids,
    pageSize: query.page_size,
    nextPageToken: query.next_page_token,
  });
  res.json({ voices: page.voices.map(elevenLabsVoiceOf), has_more: page.nextPageToken !== undefined, total_count: page.totalCount, next_page_token: page.nextPageToken ?? null });
});
