/**
 * IPA (as espeak-ng itself writes it for English, with stress and length marks) to espeak-ng's
 * phoneme mnemonics, the notation its `[[...]]` phoneme input reads. Longest match first; symbols
 * outside the table are dropped (espeak would read them as unknown phonemes).
 */

/** IPA sequences and their espeak mnemonics; multi-symbol entries come first. */
const IPA_TO_ESPEAK: readonly (readonly [string, string])[] = [
  ['t͡ʃ', 'tS'], ['d͡ʒ', 'dZ'], ['tʃ', 'tS'], ['dʒ', 'dZ'],
  ['aɪə', 'aI@'], ['aʊə', 'aU@'], ['ɑːɹ', 'A@'], ['ɔːɹ', 'O@'], ['ɛɹ', 'e@'], ['ɪɹ', 'i@'], ['ʊɹ', 'U@'],
  ['eɪ', 'eI'], ['aɪ', 'aI'], ['ɔɪ', 'OI'], ['oʊ', 'oU'], ['əʊ', 'oU'], ['aʊ', 'aU'], ['ɪə', 'i@'], ['eə', 'e@'], ['ʊə', 'U@'],
  ['iː', 'i:'], ['uː', 'u:'], ['ɑː', 'A:'], ['ɔː', 'O:'], ['ɜː', '3:'], ['əl', '@L'],
  ['ə', '@'], ['ɚ', '3'], ['ɝ', '3:'], ['ɜ', '3:'], ['æ', 'a'], ['ʌ', 'V'], ['ɪ', 'I'], ['ᵻ', 'I2'], ['i', 'i'], ['ʊ', 'U'], ['u', 'u:'],
  ['ɛ', 'E'], ['e', 'E'], ['ɔ', 'O:'], ['ɑ', 'A:'], ['ɒ', '0'], ['ɐ', 'a#'], ['a', 'a'], ['o', 'oU'],
  ['θ', 'T'], ['ð', 'D'], ['ʃ', 'S'], ['ʒ', 'Z'], ['ŋ', 'N'], ['ɹ', 'r'], ['r', 'r'], ['ɾ', 't'], ['ɡ', 'g'], ['g', 'g'], ['ʔ', '?'],
  ['ç', 'C'], ['x', 'x'], ['ɬ', 'l'], ['ɫ', 'l'], ['ʍ', 'w'],
  ['p', 'p'], ['b', 'b'], ['t', 't'], ['d', 'd'], ['k', 'k'], ['f', 'f'], ['v', 'v'], ['s', 's'], ['z', 'z'], ['h', 'h'],
  ['m', 'm'], ['n', 'n'], ['l', 'l'], ['j', 'j'], ['w', 'w'],
  ['ˈ', "'"], ['ˌ', ','], ['ː', ':'], [' ', ' '],
];

/** Espeak phoneme mnemonics of an IPA string ("təˈmɑːtoʊ" -> "t@'mA:toU"). */
export function ipaToEspeak(ipa: string): string {
  const text = ipa.normalize('NFC').replace(/\s+/g, ' ').trim();
  let out = '';
  for (let at = 0; at < text.length; ) {
    const match = IPA_TO_ESPEAK.find(([from]) => text.startsWith(from, at));
    if (match) {
      out += match[1];
      at += match[0].length;
    } else at += 1;
  }
  return out;
}
