import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '../errors/tts-error.js';
import { IPA_SYMBOLS, invalidIpaSymbol } from './ipa.js';
import { LEXICON_LIMITS, checkLexicon, checkLexiconEntry, lexiconWordKey, mergeLexicons } from './lexicon.js';

/** Asserts that `fn` throws a TtsError of `code` whose message contains `text` and whose loc is `loc`. */
function throwsCode(fn: () => unknown, code: string, text?: string, loc?: readonly (string | number)[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof TtsError, String(err));
    assert.equal(err.code, code);
    if (text !== undefined) assert.ok(err.message.includes(text), err.message);
    if (loc !== undefined) assert.deepEqual(err.loc, loc);
    return true;
  });
}

describe('IPA symbols', () => {
  it('accepts espeak-ng IPA with stress, length, syllable and tone marks, combining diacritics and spaces', () => {
    for (const ipa of ['təˈmɑːtoʊ', 'ˌɛkspləˈneɪʃən', 'nuː jˈɔːɹk', 'bɔ̃ʒuʁ', 'ˈɡʊtən taːk', 'tʃˈiːz', 't͡ʃiːz', 'ʃɪˈvɔːn', 'baˑt', 'ˈa.ɪ', 'ma˥˩', 'ni2 xau3', 'kʰæt', 'bʌtn̩', 'çaʊ', 'ɾ']) {
      assert.equal(invalidIpaSymbol(ipa), undefined, ipa);
    }
  });

  it('names the first symbol outside the table and its position', () => {
    assert.deepEqual(invalidIpaSymbol('təXma'), { symbol: 'X', index: 2 });
    // espeak-ng's own mnemonics are not IPA.
    assert.deepEqual(invalidIpaSymbol("t@m'A:toU"), { symbol: '@', index: 1 });
    assert.deepEqual(invalidIpaSymbol('hello!'), { symbol: '!', index: 5 });
    assert.deepEqual(invalidIpaSymbol('TOMATO'), { symbol: 'T', index: 0 });
    // A combining mark espeak does not write (U+0334, tilde overlay) after a valid letter.
    assert.deepEqual(invalidIpaSymbol('a\u0334'), { symbol: '\u0334', index: 1 });
  });

  it('has the stress and length marks and tone numbers, and none of the mnemonics espeak writes where it has no IPA', () => {
    for (const mark of ['ˈ', 'ˌ', 'ː', 'ˑ', '.']) assert.ok(IPA_SYMBOLS.has(mark), mark);
    for (const letter of ['A', 'E', 'R', 'S', '@', '0', '8', ':', "'", '(', 'Φ']) assert.ok(!IPA_SYMBOLS.has(letter), letter);
  });
});

describe('lexicon entries', () => {
  it('stores words and pronunciations normalized, case_sensitive false by default', () => {
    assert.deepEqual(checkLexiconEntry({ word: '  New \t York ', ipa: ' nuː  jˈɔːɹk ' }, []), { word: 'New York', ipa: 'nuː jˈɔːɹk', caseSensitive: false });
    assert.deepEqual(checkLexiconEntry({ word: 'Nginx', respelling: 'engine ex', case_sensitive: true }, []), { word: 'Nginx', respelling: 'engine ex', caseSensitive: true });
    assert.deepEqual(checkLexiconEntry({ word: 'C++', respelling: 'see plus plus', ipa: null }, []), { word: 'C++', respelling: 'see plus plus', caseSensitive: false });
    assert.equal(lexiconWordKey(' TOMATO '), 'tomato');
  });

  it('refuses bad words, pronunciations and shapes with their codes, naming the field', () => {
    throwsCode(() => checkLexiconEntry({ word: '   ', ipa: 'ə' }, ['body', 'entries', 2]), 'LEXICON_WORD_INVALID', 'empty', ['body', 'entries', 2, 'word']);
    throwsCode(() => checkLexiconEntry({ word: 'a<b', ipa: 'ə' }, []), 'LEXICON_WORD_INVALID', 'U+003C');
    throwsCode(() => checkLexiconEntry({ word: '...', ipa: 'ə' }, []), 'LEXICON_WORD_INVALID', 'no letter or digit');
    throwsCode(() => checkLexiconEntry({ word: 'one two three four five six seven eight nine', ipa: 'ə' }, []), 'LEXICON_WORD_INVALID', '9 words');
    throwsCode(() => checkLexiconEntry({ word: 'x'.repeat(LEXICON_LIMITS.maxWordChars + 1), ipa: 'ə' }, []), 'LEXICON_ENTRY_TOO_LONG', '101 characters');
    throwsCode(() => checkLexiconEntry({ word: 'tomato', ipa: 'təXmɑːtoʊ' }, ['body']), 'LEXICON_IPA_INVALID', '"X" (U+0058) at symbol 3', ['body', 'ipa']);
    throwsCode(() => checkLexiconEntry({ word: 'tomato', ipa: 'ˈː .' }, []), 'LEXICON_IPA_INVALID', 'no phoneme');
    throwsCode(() => checkLexiconEntry({ word: 'tomato', ipa: 'ə'.repeat(LEXICON_LIMITS.maxPronunciationChars + 1) }, []), 'LEXICON_ENTRY_TOO_LONG', '201 characters');
    throwsCode(() => checkLexiconEntry({ word: 'tomato', respelling: 'tuh-may-toh!' }, ['body']), 'LEXICON_RESPELLING_INVALID', 'U+0021', ['body', 'respelling']);
    throwsCode(() => checkLexiconEntry({ word: 'tomato', respelling: '--' }, []), 'LEXICON_RESPELLING_INVALID', 'no letter');
    throwsCode(() => checkLexiconEntry({ word: 'tomato' }, ['body']), 'LEXICON_ENTRY_INVALID', 'exactly one', ['body']);
    throwsCode(() => checkLexiconEntry({ word: 'tomato', ipa: 'ə', respelling: 'uh' }, []), 'LEXICON_ENTRY_INVALID');
  });

  it('checks a whole lexicon: its size first, then each entry, then one entry per word whatever the case', () => {
    const many = Array.from({ length: LEXICON_LIMITS.maxEntries + 1 }, () => ({ word: 'x', ipa: '!' }));
    throwsCode(() => checkLexicon(many, ['body', 'entries']), 'LEXICON_TOO_LARGE', '1001 entries', ['body', 'entries']);
    throwsCode(() => checkLexicon([{ word: 'a', ipa: 'eɪ' }, { word: 'b', ipa: 'b!' }], ['body', 'entries']), 'LEXICON_IPA_INVALID', undefined, ['body', 'entries', 1, 'ipa']);
    throwsCode(() => checkLexicon([{ word: 'Tomato', ipa: 'ə' }, { word: 'tomato', respelling: 'uh' }], ['e']), 'LEXICON_ENTRY_DUPLICATE', 'Entries 0 and 1', ['e', 1, 'word']);
    assert.equal(checkLexicon(Array.from({ length: LEXICON_LIMITS.maxEntries }, (_, i) => ({ word: `w${i}`, respelling: 'ok' })), []).length, LEXICON_LIMITS.maxEntries);
  });

  it('merges a preset lexicon over the caller\'s: the preset\'s entry wins for a word both have', () => {
    const own = [{ word: 'tomato', ipa: 'təˈmeɪtoʊ', caseSensitive: false }, { word: 'route', respelling: 'root', caseSensitive: false }];
    const preset = [{ word: 'Tomato', ipa: 'təˈmɑːtoʊ', caseSensitive: false }];
    assert.deepEqual(mergeLexicons(own, preset), [preset[0], own[1]]);
  });
});
