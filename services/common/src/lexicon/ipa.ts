/**
 * The IPA a pronunciation lexicon accepts: the symbols espeak-ng writes in its own IPA output
 * (`espeak-ng --ipa`, `espeak_TextToPhonemes` with IPA) for its languages, with stress, length,
 * syllable and tone marks. espeak-ng renders that IPA (through its phoneme mnemonics) and Piper
 * voices read it as their phoneme ids, so an entry made of these symbols is one the engines can say.
 * A test checks that espeak-ng's IPA for several hundred English words, and sentences of other
 * languages, stays inside this table. Left out on purpose: what espeak-ng writes that is not IPA,
 * its language-switch markers ("(en)") and the mnemonics some of its tables fall back to for
 * phonemes without an IPA form (Irish "A", Kyrgyz "S", Luxembourgish "X", Oromo "`", Lule Sami "Φ").
 */

/** Vowel letters espeak-ng writes (IPA chart vowels, r-coloured ɚ ɝ, the barred ᵻ ᵿ, and the Greek ε its Danish writes). */
const VOWELS = 'iyɨʉɯuɪʏʊeøɘɵɤoəɛœɜɞʌɔæɐaɶɑɒɚɝᵻᵿε';

/** Consonant letters: pulmonic, non-pulmonic (clicks, implosives), co-articulated and others; both g and ɡ. */
const CONSONANTS = 'pbtdʈɖcɟkgɡqɢʔmɱnɳɲŋɴʙrʀⱱɾɽɸβfvθðszʃʒʂʐçʝxɣχʁħʕhɦɬɮʋɹɻjɰlɭʎʟɫʍwɥʜʢʡɕʑɺɧʘǀǃǂǁɓɗʄɠʛʦ';

/** Modifier letters: aspiration, palatalization, labialization, velarization, pharyngealization, ejectives, release, rhotic hook, compression (ᵝ, Japanese). */
const MODIFIERS = 'ʰʲʷˠˤⁿˡʼ˞ᵊᵝ';

/** Combining diacritics (checked after NFD, so "ç" is c + U+0327 and "ã" is a + U+0303). */
const COMBINING = '\u0303\u0325\u030A\u0329\u032A\u032F\u0361\u035C\u0306\u0308\u031A\u031D\u031E\u031F\u0320\u032C\u0324\u0330\u0339\u031C\u033A\u033B\u0327\u0318\u0319';

/**
 * Stress (ˈ ˌ), length (ː ˑ), syllable break (.), linking (‿, and the "-" of French liaisons,
 * "le-z ɑ̃fˈɑ̃"), group marks (| ‖), tone letters and marks, and the tone numbers 1-7 espeak-ng writes after the syllables of its tonal languages
 * (Mandarin "ni2", Cantonese, Vietnamese, Hakka, Shan).
 */
const PROSODIC = 'ˈˌːˑ.‿|‖˥˦˧˨˩↗↘1234567-';

/** Every code point an IPA pronunciation may hold (white space between words aside). */
export const IPA_SYMBOLS: ReadonlySet<string> = new Set([...VOWELS, ...CONSONANTS, ...MODIFIERS, ...COMBINING, ...PROSODIC]);

/** Stress and length marks of the table (what espeak-ng writes around its phonemes). */
export const IPA_STRESS_AND_LENGTH: readonly string[] = ['ˈ', 'ˌ', 'ː', 'ˑ'];

/** The first symbol of `ipa` outside the table, or undefined when every symbol is in it. */
export function invalidIpaSymbol(ipa: string): { readonly symbol: string; readonly index: number } | undefined {
  let index = 0;
  for (const ch of ipa.normalize('NFD')) {
    if (!/\s/u.test(ch) && !IPA_SYMBOLS.has(ch)) return { symbol: ch, index };
    index++;
  }
  return undefined;
}

/** "U+0041" for "A": how an error message names a symbol that may be invisible (a combining mark). */
export function codePointName(symbol: string): string {
  return `U+${(symbol.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
