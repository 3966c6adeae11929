/** The platform's voices for the preset editor, grouped by engine and language like the public page. */
import { useEffect, useState } from 'preact/hooks';
import { getJson, type Voice } from '../../lib/api.js';

/** Voices grouped under "engine · language", groups sorted. */
export function groupVoices(voices: readonly Voice[]): [string, Voice[]][] {
  const groups = new Map<string, Voice[]>();
  for (const v of voices) {
    const key = `${v.engine} · ${v.language || 'any language'}`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** The voices (GET /v1/audio/voices), asked again every few seconds until a node serves some. */
export function useVoices(): { voices: readonly Voice[]; defaultVoice: string } {
  const [state, setState] = useState<{ voices: readonly Voice[]; defaultVoice: string }>({ voices: [], defaultVoice: '' });
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      try {
        const v = await getJson<{ voices: Voice[]; default_voice: string }>('/v1/audio/voices');
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
