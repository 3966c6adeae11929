/**
 * Phonemes to model ids exactly as Piper (piper-phonemize `phonemes_to_ids`) does it: the IPA
 * string is NFD-decomposed and split into code points, each mapped through the voice's
 * `phoneme_map` then its `phoneme_id_map`; the ids are `^`, `_`, then each phoneme's ids followed
 * by `_`, then `$`. Phonemes missing from the map are skipped and counted.
 */

/** Piper's special symbols. */
export const PAD = '_';
/** Beginning of utterance. */
export const BOS = '^';
/** End of utterance. */
export const EOS = '$';

/** Ids of one utterance plus the phonemes that had no id. */
export interface PhonemeIds {
  readonly ids: number[];
  /** Count of each skipped phoneme (empty when all were known). */
  readonly missing: Map<string, number>;
  /** Phonemes that mapped to ids (excluding `^`, `_`, `$`). */
  readonly mapped: number;
}

/** Splits an IPA string into Piper phonemes: NFD code points, with `phonemeMap` substitutions applied. */
export function splitPhonemes(ipa: string, phonemeMap?: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const symbol of ipa.normalize('NFD')) {
    const replaced = phonemeMap?.get(symbol);
    if (replaced === undefined) out.push(symbol);
    else out.push(...replaced);
  }
  return out;
}

/**
 * Maps `phonemes` (see `splitPhonemes`) to ids with `idMap`. Throws when the map lacks `^`, `_`
 * or `$`.
 */
export function phonemesToIds(phonemes: readonly string[], idMap: ReadonlyMap<string, readonly number[]>): PhonemeIds {
  const special = (symbol: string): readonly number[] => {
    const ids = idMap.get(symbol);
    if (ids === undefined) throw new Error(`phoneme_id_map has no "${symbol}"`);
    return ids;
  };
  const pad = special(PAD);
  const ids: number[] = [...special(BOS), ...pad];
  const missing = new Map<string, number>();
  let mapped = 0;
  for (const phoneme of phonemes) {
    const phonemeIds = idMap.get(phoneme);
    if (phonemeIds === undefined) {
      missing.set(phoneme, (missing.get(phoneme) ?? 0) + 1);
      continue;
    }
    ids.push(...phonemeIds, ...pad);
    mapped++;
  }
  ids.push(...special(EOS));
  return { ids, missing, mapped };
}
