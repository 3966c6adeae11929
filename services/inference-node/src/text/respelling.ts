/**
 * IPA to an English respelling, for engines that cannot take phonemes (flite, festival) when a
 * lexicon entry gives only IPA: each phoneme becomes the letters an English reader says it with
 * (the table below), and syllables are joined by hyphens, which these engines read as separate
 * short words ("təˈmɑːtoʊ" -> "tuh-mah-toh"). Stress is not marked (capitals would be spelled out
 * as letters by some engines), so the engine's own stress rules place it; a respelling entry gives
 * full control where that matters.
 */

/** IPA phonemes (longest first at one place) and their English spelling. */
const PHONEMES: readonly (readonly [ipa: string, letters: string, vowel: boolean])[] = [
  // Diphthongs and r-coloured vowels.
  ['aɪə', 'ire', true], ['aʊə', 'ower', true], ['ɑːɹ', 'ar', true], ['ɔːɹ', 'or', true], ['ɛɹ', 'air', true], ['ɪɹ', 'eer', true], ['ʊɹ', 'oor', true],
  ['eɪ', 'ay', true], ['aɪ', 'eye', true], ['ɔɪ', 'oy', true], ['oʊ', 'oh', true], ['əʊ', 'oh', true], ['aʊ', 'ow', true],
  ['ɪə', 'eer', true], ['eə', 'air', true], ['ɛə', 'air', true], ['ʊə', 'oor', true],
  // Long vowels.
  ['iː', 'ee', true], ['uː', 'oo', true], ['ɑː', 'ah', true], ['ɔː', 'aw', true], ['ɜː', 'er', true],
  // Short vowels.
  ['ə', 'uh', true], ['ɚ', 'er', true], ['ɝ', 'er', true], ['ɜ', 'er', true], ['æ', 'a', true], ['ʌ', 'uh', true], ['ɪ', 'i', true], ['ᵻ', 'i', true],
  ['i', 'ee', true], ['ʊ', 'uu', true], ['u', 'oo', true], ['ɛ', 'e', true], ['e', 'e', true], ['ɔ', 'aw', true], ['ɑ', 'ah', true], ['ɒ', 'o', true],
  ['ɐ', 'uh', true], ['a', 'a', true], ['o', 'oh', true], ['y', 'ew', true], ['ø', 'er', true], ['œ', 'er', true], ['ɨ', 'i', true], ['ʉ', 'oo', true],
  ['ɯ', 'oo', true], ['ɤ', 'uh', true], ['ɘ', 'uh', true], ['ɵ', 'er', true], ['ɞ', 'er', true], ['ʏ', 'ew', true], ['ɶ', 'a', true], ['ᵿ', 'uu', true],
  // Affricates and consonants.
  ['t͡ʃ', 'ch', false], ['d͡ʒ', 'j', false], ['tʃ', 'ch', false], ['dʒ', 'j', false], ['ts', 'ts', false],
  ['θ', 'th', false], ['ð', 'th', false], ['ʃ', 'sh', false], ['ʒ', 'zh', false], ['ŋ', 'ng', false], ['ɹ', 'r', false], ['r', 'r', false],
  ['ɾ', 't', false], ['ɡ', 'g', false], ['g', 'g', false], ['j', 'y', false], ['ç', 'h', false], ['x', 'kh', false], ['χ', 'kh', false],
  ['ɬ', 'hl', false], ['ɫ', 'l', false], ['ʍ', 'wh', false], ['ʁ', 'r', false], ['ʀ', 'r', false], ['ɣ', 'g', false], ['β', 'v', false],
  ['ɸ', 'f', false], ['ɲ', 'ny', false], ['ʎ', 'ly', false], ['ɕ', 'sh', false], ['ʑ', 'zh', false], ['ʂ', 'sh', false], ['ʐ', 'zh', false],
  ['ɦ', 'h', false], ['ħ', 'h', false], ['ʋ', 'v', false], ['ɻ', 'r', false], ['ɭ', 'l', false], ['ɳ', 'n', false], ['ʈ', 't', false], ['ɖ', 'd', false],
  ['c', 'ky', false], ['ɟ', 'gy', false], ['q', 'k', false], ['ɢ', 'g', false], ['ɴ', 'ng', false], ['ɱ', 'm', false], ['ɥ', 'w', false],
  ['p', 'p', false], ['b', 'b', false], ['t', 't', false], ['d', 'd', false], ['k', 'k', false], ['f', 'f', false], ['v', 'v', false],
  ['s', 's', false], ['z', 'z', false], ['h', 'h', false], ['m', 'm', false], ['n', 'n', false], ['l', 'l', false], ['w', 'w', false],
];

/** One phoneme of a word, or a syllable boundary the IPA marks (stress, "."). */
type Segment = { readonly letters: string; readonly vowel: boolean } | 'boundary';

/** The phonemes of one IPA word; symbols without an English spelling (length marks, diacritics, ʔ) are skipped. */
function segmentsOf(word: string): Segment[] {
  const out: Segment[] = [];
  for (let at = 0; at < word.length; ) {
    const ch = word[at]!;
    if (ch === 'ˈ' || ch === 'ˌ' || ch === '.') {
      out.push('boundary');
      at++;
      continue;
    }
    const hit = PHONEMES.find(([ipa]) => word.startsWith(ipa, at));
    if (hit === undefined) {
      at++;
      continue;
    }
    // A syllabic consonant ("l̩", "n̩") is a syllable of its own: "uhl", "uhn".
    const syllabic = word[at + hit[0].length] === '\u0329';
    out.push(syllabic ? { letters: `uh${hit[1]}`, vowel: true } : { letters: hit[1], vowel: hit[2] });
    at += hit[0].length;
  }
  return out;
}

/**
 * Syllables of a word: each vowel is a nucleus; of the consonants between two vowels the last one
 * starts the next syllable (the others close the previous one), unless the IPA marks the boundary.
 */
function syllablesOf(segments: readonly Segment[]): string[] {
  const syllables: string[] = [];
  let current = '';
  let hasVowel = false;
  let pending: string[] = [];
  const close = (): void => {
    if (current !== '') syllables.push(current);
    current = '';
    hasVowel = false;
  };
  for (const s of segments) {
    if (s === 'boundary') {
      if (hasVowel) {
        current += pending.join('');
        pending = [];
        close();
      }
      continue;
    }
    if (!s.vowel) {
      if (hasVowel) pending.push(s.letters);
      else current += s.letters;
      continue;
    }
    if (hasVowel) {
      const onset = pending.pop() ?? '';
      current += pending.join('');
      pending = [];
      close();
      current = onset;
    }
    current += s.letters;
    hasVowel = true;
  }
  current += pending.join('');
  close();
  return syllables;
}

/** An English respelling of `ipa` ("təˈmeɪtoʊ" -> "tuh-may-toh"; words stay apart). */
export function ipaToRespelling(ipa: string): string {
  return ipa
    .normalize('NFC')
    .split(/\s+/u)
    .map((word) => syllablesOf(segmentsOf(word)).join('-'))
    .filter((w) => w !== '')
    .join(' ');
}
