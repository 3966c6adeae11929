/**
 * Symbols read as words (& + = @ # % ° ± × ...), hashtags, and brackets turned into pauses.
 */

/** "#SummerVibes" -> "hashtag Summer Vibes" */
function readHashtag(tag: string): string {
  return `hashtag ${tag.replace(/_/g, ' ').replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').replace(/(\p{L})(\p{N})/gu, '$1 $2')}`;
}

const SYMBOL_WORDS: Readonly<Record<string, string>> = {
  '&': 'and', '+': 'plus', '=': 'equals', '\u2260': 'is not equal to', '\u2264': 'is less than or equal to',
  '\u2265': 'is greater than or equal to', '\u00B1': 'plus or minus', '\u00D7': 'times', '\u00F7': 'divided by',
  '\u2192': 'to', '@': 'at',
};
const SYMBOL = /\s*([&+=\u2260\u2264\u2265\u00B1\u00D7\u00F7\u2192@])\s*/g;

type Step = readonly [hint: RegExp, pattern: RegExp, replacement: string | ((match: string, ...groups: string[]) => string)];

// Each step runs only when its hint matches, which keeps plain prose cheap.
const STEPS: readonly Step[] = [
  [/#/, /#(\p{L}[\p{L}\p{N}_]*)/gu, (_m, tag = '') => readHashtag(tag)],
  [/\+\+/, /\b([A-Z])\+\+(?![\w+])/g, '$1 plus plus'],
  [/#/, /\b([CF])#(?!\w)/g, '$1 sharp'],
  [/\//, /\band\/or\b/gi, 'and or'],
  [/\//, /\bw\/o\b/gi, 'without'],
  [/\//, /\bw\/(?=\s)/gi, 'with'],
  [/\//, /\b24\/7\b/g, 'twenty-four seven'],
  [/\//, /\b9\/11\b/g, 'nine eleven'],
  [/\//, /(\p{Ll})\/(?=\p{Ll})/gu, '$1 or '],
  [/\//, /(?<!\d)\/|\/(?!\d)/g, ' slash '],
  [SYMBOL, SYMBOL, (_m, symbol = '') => ` ${SYMBOL_WORDS[symbol] ?? ''} `],
  [/[<>]/, /\s+<\s+/g, ' is less than '],
  [/[<>]/, /\s+>\s+/g, ' is greater than '],
  [/[\u2248~]/, /\s*[\u2248~]\s*(?=[\d.])/g, ' about '],
  [/\u00A7/, /\u00A7\s*/g, 'section '],
  [/%/, /%/g, ' percent'],
  [/\u00B0/, /\u00B0/g, ' degrees'],
  [/[()[\]{}]/, /\s*[()[\]{}]\s*/g, ', '],
  [/[*_|^~\\<>#]/, /[*_|^~\\<>#]+/g, ' '],
];

/** Reads symbols as words and turns brackets into comma pauses; digits are left for the number pass. */
export function normalizeSymbols(text: string): string {
  let out = text;
  for (const [hint, pattern, replacement] of STEPS) {
    if (!hint.test(out)) continue;
    out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out;
}
