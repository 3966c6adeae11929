/** Builds the espeak engine's voice list from what libespeak-ng reports. */
import type { VoiceDescriptor } from '../engine.js';
import type { EspeakVoiceInfo } from './espeak-lib.js';

/**
 * Variants offered on top of a base voice ("espeak:en-us+f3"), so that clients (e.g. OpenAI voice
 * names) can map to audibly distinct voices. Only variants installed are listed.
 */
export const ESPEAK_VARIANTS: Readonly<Record<string, readonly string[]>> = {
  'en-us': ['f1', 'f2', 'f3', 'f4', 'f5', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'],
  'en-gb': ['f3', 'm3'],
};

/** The voice list and, per voice name (the part after "espeak:"), the string espeak selects it by. */
export interface EspeakVoiceTable {
  readonly descriptors: readonly VoiceDescriptor[];
  readonly selectors: ReadonlyMap<string, string>;
}

/**
 * A BCP-47 tag from an espeak language name: "en-us" -> "en-US", "en-gb-x-rp" -> "en-GB-x-rp",
 * "es-419" stays, 4-letter subtags become title case (scripts).
 */
export function bcp47FromEspeak(language: string): string {
  const parts = language.split('-');
  let privateUse = false;
  return parts
    .map((part, i) => {
      const p = part.toLowerCase();
      if (i === 0 || privateUse) return p;
      if (p === 'x') {
        privateUse = true;
        return p;
      }
      if (/^[a-z]{2}$/.test(p)) return p.toUpperCase();
      if (/^[a-z]{4}$/.test(p)) return p[0]!.toUpperCase() + p.slice(1);
      return p;
    })
    .join('-');
}

function genderOf(code: number): VoiceDescriptor['gender'] {
  return code === 1 ? 'male' : code === 2 ? 'female' : 'unknown';
}

/**
 * One voice per installed espeak voice (mbrola voices excluded: they need the separate mbrola
 * program and databases), named after its first language ("espeak:de", "espeak:fr-fr"), plus the
 * {@link ESPEAK_VARIANTS}. The first voice wins when two share a language name.
 */
export function buildVoiceTable(voices: readonly EspeakVoiceInfo[], variants: readonly EspeakVoiceInfo[], sampleRate: number): EspeakVoiceTable {
  const descriptors: VoiceDescriptor[] = [];
  const selectors = new Map<string, string>();
  const variantByFile = new Map(variants.map((v) => [v.identifier.replace(/^!v\//, ''), v]));
  const add = (name: string, selector: string, label: string, gender: VoiceDescriptor['gender'], languages: readonly string[], description: string): void => {
    if (selectors.has(name)) return;
    const tags = [...new Set(languages.map(bcp47FromEspeak))];
    selectors.set(name, selector);
    descriptors.push({
      id: `espeak:${name}`,
      name: label,
      engine: 'espeak',
      language: tags[0] ?? 'und',
      languages: tags,
      gender,
      sampleRate,
      quality: 'low',
      description,
    });
  };
  for (const v of voices) {
    const language = v.languages[0];
    if (!language || v.identifier.startsWith('mb/')) continue;
    const name = language.toLowerCase();
    add(name, v.identifier, v.name, genderOf(v.gender), v.languages, `eSpeak NG formant voice ${v.name} (${v.identifier}).`);
    for (const variant of ESPEAK_VARIANTS[name] ?? []) {
      const info = variantByFile.get(variant);
      if (!info) continue;
      add(`${name}+${variant}`, `${v.identifier}+${variant}`, `${v.name}, ${info.name}`, genderOf(info.gender), v.languages, `eSpeak NG ${v.name} with the "${info.name}" variant.`);
    }
  }
  return { descriptors, selectors };
}
