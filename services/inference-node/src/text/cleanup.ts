/**
 * Language-independent clean-up: control and invisible characters, line endings and white space.
 */

// C0/C1 controls except tab and newlines, plus invisible format characters that carry no sound.
// ZWJ/ZWNJ (U+200C/U+200D) are kept: they change the spelling of Indic and Persian text.
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u200B\u2060-\u2064\uFEFF\uFFF9-\uFFFC]/g;
const LINE_BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;
// A run of white space other than line breaks, or a single such character that is not a plain space.
const HORIZONTAL_SPACE = /[ \t\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]{2,}|[\t\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * Removes control and invisible characters, turns every line break into "\n", collapses runs of
 * spaces to one space, trims each line and collapses runs of blank lines to one blank line.
 */
export function cleanText(text: string): string {
  return text
    .normalize('NFC')
    .replace(LINE_BREAKS, '\n')
    .replace(INVISIBLE, '')
    .replace(HORIZONTAL_SPACE, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * True when the text holds at least one letter or digit, or a pronunciation lexicon mark (a word the
 * lexicon says, see text/lexicon.ts), so an engine has something to say.
 */
export function isSpeakable(text: string): boolean {
  return /[\p{L}\p{N}\uE000-\uF8FF]/u.test(text);
}

/** True for a BCP-47 tag of English ("en", "en-US", "en_GB"). */
export function isEnglish(language: string): boolean {
  return /^en(?:[-_]|$)/i.test(language);
}
