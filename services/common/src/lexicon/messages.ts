/**
 * Lexicon entries as the gRPC contract carries them (`tts.v1.LexiconEntry`, the absent
 * pronunciation an empty string) and back: the facade sends them in `SpeechSpec.lexicon`, the
 * scheduler stores a job's and sends them on, the node applies them.
 */
import type { LexiconEntry as LexiconEntryMessage } from '@tts/proto/synthesis';
import { LEXICON_LIMITS, checkLexicon, type LexiconEntry } from './lexicon.js';

/** Entries as proto messages. */
export function lexiconMessages(entries: readonly LexiconEntry[]): LexiconEntryMessage[] {
  return entries.map((e) => ({ word: e.word, ipa: e.ipa ?? '', respelling: e.respelling ?? '', caseSensitive: e.caseSensitive }));
}

/**
 * Entries of proto messages, checked with the rules the facade applied (a request may come from
 * anywhere): at most `maxRequestEntries`, each valid, one per word. Throws the LEXICON_* codes with
 * `loc` naming the list.
 */
export function lexiconOfMessages(messages: readonly LexiconEntryMessage[], loc: readonly (string | number)[]): LexiconEntry[] {
  const inputs = messages.map((m) => ({ word: m.word, ipa: m.ipa === '' ? null : m.ipa, respelling: m.respelling === '' ? null : m.respelling, case_sensitive: m.caseSensitive }));
  return checkLexicon(inputs, loc, LEXICON_LIMITS.maxRequestEntries);
}
