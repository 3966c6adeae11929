/** The platform's voices for the preset editor. */
import { useEffect, useState } from 'preact/hooks';
import { getJson, type Voice } from '../../lib/api.js';
import type { Schema } from '../../lib/schema.js';

/** The voices (GET /v1/audio/voices), asked again every few seconds until a node serves some. */
export function useVoices(): { voices: readonly Voice[]; defaultVoice: string } {
  const [state, setState] = useState<{ voices: readonly Voice[]; defaultVoice: string }>({ voices: [], defaultVoice: '' });
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      try {
        const v = await getJson<Schema<'VoiceList'>>('/v1/audio/voices');
        if (stopped) return;
        if (v.voices.length > 0) {
          setState({ voices: v.voices, defaultVoice: v.default_voice });
          return;
        }
      } catch {
        // Not reachable yet: ask again below.
      }
      if (!stopped) timer = setTimeout(() => void load(), 3000);
    };
    void load();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, []);
  return state;
}
