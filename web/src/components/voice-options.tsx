/** The platform's voices as the <option>s of a voice <select>, grouped by engine and language. */
import { useMemo } from 'preact/hooks';
import type { Voice } from '../lib/api.js';

/** Voices grouped under "engine · language", groups sorted. */
function groupVoices(voices: readonly Voice[]): [string, Voice[]][] {
  const groups = new Map<string, Voice[]>();
  for (const v of voices) {
    const key = `${v.engine} · ${v.language || 'any language'}`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** One <optgroup> per engine and language; each voice by name, with its gender when known. */
export function VoiceOptions(props: { voices: readonly Voice[] }) {
  const grouped = useMemo(() => groupVoices(props.voices), [props.voices]);
  return (
    <>
      {grouped.map(([group, list]) => (
        <optgroup key={group} label={group}>
          {list.map((v) => (
            <option key={v.id} value={v.id}>
              {v.name}
              {v.gender !== 'unknown' ? ` (${v.gender})` : ''}
            </option>
          ))}
        </optgroup>
      ))}
    </>
  );
}
