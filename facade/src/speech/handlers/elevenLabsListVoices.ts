import { elevenLabsVoiceOf } from '../elevenlabs-voices.js';
import { handler } from '../../handler-context.js';

/** GET /v1/voices: ElevenLabs-compatible list of the voices of the ready engines. */
export const elevenLabsListVoices = handler('elevenLabsListVoices', ['cluster'], async ({ res, deps }) => {
  const snap = await deps.cluster.snapshot();
  res.json({ voices: [...snap.voices].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(elevenLabsVoiceOf) });
});
