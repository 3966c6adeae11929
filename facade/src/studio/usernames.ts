/**
 * Usernames that cannot pass for one another (Unicode Technical Standard #39):
 *
 * - a name is written in one script (plus the shared digits and `._-`): Latin, Cyrillic, Greek and
 *   the other alphabets each alone, Han with Hiragana/Katakana (Japanese), Hangul (Korean) or
 *   Bopomofo; `аlice` (a Cyrillic а among Latin letters) is refused (422 STUDIO_USERNAME_MIXED_SCRIPT);
 * - its skeleton (NFKC, lower case, accents and other combining marks dropped, then every character
 *   mapped to its prototype by the Unicode confusables table through `unhomoglyph`) is unique
 *   over all accounts (a unique index): `ALİCE`, `alıce`, `a1ice` or an all-Cyrillic look-alike of an
 *   existing `alice` is refused (409 STUDIO_USERNAME_CONFUSABLE).
 */
import unhomoglyph from 'unhomoglyph';

const SHARED = String.raw`\p{scx=Zyyy}\p{scx=Zinh}`;
const ALPHABETS = [
  'Latin', 'Cyrillic', 'Greek', 'Armenian', 'Georgian', 'Hebrew', 'Arabic', 'Thai', 'Lao', 'Khmer', 'Myanmar', 'Ethiopic', 'Sinhala',
  'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Tibetan', 'Mongolian',
];
const SCRIPT_SETS = [
  ...ALPHABETS.map((s) => String.raw`\p{scx=${s}}`),
  String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}`,
  String.raw`\p{scx=Han}\p{scx=Hangul}`,
  String.raw`\p{scx=Han}\p{scx=Bopomofo}`,
].map((set) => new RegExp(`^[${set}${SHARED}]*$`, 'u'));

/** True when every character of `name` belongs to one script (or to those shared by all). */
export function isSingleScript(name: string): boolean {
  return SCRIPT_SETS.some((re) => re.test(name));
}

/** The UTS #39 skeleton of a username: equal for names a reader cannot tell apart. */
export function usernameSkeleton(name: string): string {
  const folded = name.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
  return unhomoglyph(folded).normalize('NFD').replace(/\p{M}/gu, '');
}
