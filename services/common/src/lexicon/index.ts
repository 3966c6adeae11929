/** Pronunciation lexicons: the entry rules and the IPA symbol table shared by the facade and the nodes. */
export {
  LEXICON_LIMITS, checkLexicon, checkLexiconEntry, checkLexiconIpa, checkLexiconRespelling, checkLexiconWord, lexiconWordKey, mergeLexicons,
  normalizeLexiconWord, type LexiconEntry, type LexiconEntryInput,
} from './lexicon.js';
export { lexiconMessages, lexiconOfMessages } from './messages.js';
export { IPA_STRESS_AND_LENGTH, IPA_SYMBOLS, codePointName, invalidIpaSymbol } from './ipa.js';
