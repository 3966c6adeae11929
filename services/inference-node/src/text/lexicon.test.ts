import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSsml, type LexiconEntry } from '@tts/common';
import { compileLexicon, findLexiconMatches, ipaToRespelling, prepareSpeech, prepareText } from './index.js';
import { ssmlPieces } from './ssml.js';

const ipa = (word: string, pron: string, caseSensitive = false): LexiconEntry => ({ word, ipa: pron, caseSensitive });
const respell = (word: string, pron: string, caseSensitive = false): LexiconEntry => ({ word, respelling: pron, caseSensitive });

/** The written forms the lexicon matches in `text`, in order. */
function found(text: string, entries: readonly LexiconEntry[]): string[] {
  return findLexiconMatches(text, compileLexicon(entries)).map((m) => `${text.slice(m.start, m.end)}=${m.entry.word}`);
}

describe('lexicon matching', () => {
  it('matches whole words only: not inside words, not before an apostrophe suffix, beside punctuation and hyphens', () => {
    const tomato = [ipa('tomato', 'təˈmɑːtoʊ')];
    assert.deepEqual(found('tomato tomatoes atomato tomato. (tomato) "tomato", tomato-based', tomato), ['tomato=tomato', 'tomato=tomato', 'tomato=tomato', 'tomato=tomato', 'tomato=tomato']);
    assert.deepEqual(found("the tomato's skin, tomato’s too, tomato' is odd", tomato), ["tomato=tomato"]);
    assert.deepEqual(found('tomato\ntomato\ttomato', tomato).length, 3);
  });

  it('is Unicode-aware: letters of any script and combining marks are word characters', () => {
    const e = [respell('café', 'ka-fay'), respell('мир', 'meer')];
    assert.deepEqual(found('café cafés le café! мир миру мир.', e), ['café=café', 'café=café', 'мир=мир', 'мир=мир']);
    // A decomposed é (e + U+0301) is not cut after the e: "cafe" is no match in "café".
    assert.deepEqual(found('cafe\u0301', [respell('cafe', 'kayf')]), []);
  });

  it('is case-insensitive unless an entry is case-sensitive', () => {
    assert.deepEqual(found('Tomato TOMATO tomato', [ipa('tomato', 'ə')]).length, 3);
    assert.deepEqual(found('US us Us', [respell('US', 'you ess', true)]), ['US=US']);
    assert.deepEqual(found('Nice nice NICE', [respell('Nice', 'neess', true)]), ['Nice=Nice']);
    // One entry per word whatever its case: a later entry of the same word is ignored.
    assert.deepEqual(found('polish', [respell('Polish', 'poh-lish', true), respell('polish', 'pah-lish')]), []);
  });

  it('takes the longest phrase at one place, leftmost first, phrases across any white space', () => {
    const e = [respell('New', 'noo'), respell('New York', 'noo york'), respell('York City', 'york sitty'), respell('New York City', 'the big apple')];
    assert.deepEqual(found('New York City and New  York and New\nYork Cityscape, York City', e), [
      'New York City=New York City', 'New  York=New York', 'New\nYork=New York', 'York City=York City',
    ]);
    assert.deepEqual(found('New Yorker', e), ['New=New']);
  });

  it('matches words with punctuation inside or at their end', () => {
    const e = [respell('Dr.', 'dock'), respell('C++', 'see plus plus'), respell('e-mail', 'ee-mayl'), respell('AT&T', 'ay tee and tee')];
    assert.deepEqual(found('Dr. Who likes C++ and e-mail at AT&T. ADr. C++x', e), ['Dr.=Dr.', 'C++=C++', 'e-mail=e-mail', 'AT&T=AT&T']);
  });
});

describe('lexicon in the text front-end', () => {
  const lexicon = compileLexicon([ipa('tomato', 'təˈmɑːtoʊ'), respell('Nginx', 'engine ex', true), ipa('C3PO', 'siː θɹiː piː oʊ'), respell('Dr.', 'dock')]);

  it('says IPA entries inline for an engine that takes phonemes, and reads respellings as text', () => {
    assert.deepEqual(prepareSpeech('I like Tomato soup with Nginx.', { lexicon, phonemes: true }), [
      {
        text: 'I like Tomato soup with engine ex.',
        parts: [{ text: 'I like ' }, { text: 'Tomato', ipa: 'təˈmɑːtoʊ' }, { text: ' soup with engine ex.' }],
        // What is read and written, so word timings name "Nginx", not "engine ex".
        respelled: [{ read: 'I like Tomato soup with ', written: 'I like Tomato soup with ' }, { read: 'engine ex', written: 'Nginx' }, { read: '.', written: '.' }],
      },
    ]);
  });

  it('reads IPA entries as a respelling made from the IPA on other engines', () => {
    assert.deepEqual(prepareSpeech('A tomato.', { lexicon }), [{ text: 'A tuh-mah-toh.', respelled: [{ read: 'A ', written: 'A ' }, { read: 'tuh-mah-toh', written: 'tomato' }, { read: '.', written: '.' }] }]);
    assert.deepEqual(prepareText('A tomato.', { lexicon }), ['A tuh-mah-toh.']);
  });

  it('protects lexicon words from normalization: digits, abbreviations and sentence ends stay the entry\'s', () => {
    // Without the lexicon "C3PO" gets its digit read out and "Dr." becomes "Doctor".
    const [plain] = prepareText('C3PO met Dr. Smith.');
    assert.ok(plain !== undefined && plain.includes('three') && plain.includes('Doctor'), plain);
    const [chunk] = prepareSpeech('C3PO met Dr. Smith with 3 cats.', { lexicon, phonemes: true });
    assert.equal(chunk?.text, 'C3PO met dock Smith with three cats.');
    assert.deepEqual(chunk?.parts?.[0], { text: 'C3PO', ipa: 'siː θɹiː piː oʊ' });
    // A lexicon word that is a whole sentence is still a sentence of its own.
    assert.deepEqual(prepareText('Tomato. Tomato!', { lexicon }).length, 2);
  });

  it('keeps chunking as before (a mark is one character) and is a no-op without matches', () => {
    const long = `${'word '.repeat(100)}tomato ${'word '.repeat(100)}`;
    const chunks = prepareSpeech(long, { lexicon, phonemes: true, maxChunkChars: 120 });
    assert.ok(chunks.length > 3);
    assert.equal(chunks.filter((c) => c.parts !== undefined).length, 1);
    assert.deepEqual(prepareSpeech('Nothing to see here.', { lexicon, phonemes: true }), [{ text: 'Nothing to see here.' }]);
  });

  it('drops private-use characters of the text itself (they have no sound and would pass for marks)', () => {
    assert.deepEqual(prepareText('Hello \uE000\uE001world.', { lexicon }), ['Hello world.']);
    assert.deepEqual(prepareText('\uE000'), []);
  });

  it('applies to SSML text too, keeping <phoneme> as before', () => {
    const pieces = ssmlPieces(parseSsml('<speak>A <prosody rate="slow">tomato</prosody> and <phoneme ph="pəˈteɪtoʊ">potato</phoneme>.</speak>'), { lexicon, phonemes: true });
    const speech = pieces.filter((p) => p.kind === 'speech');
    assert.deepEqual(speech.map((p) => [p.text, p.kind === 'speech' ? p.parts ?? p.phonemes : undefined]), [
      ['A', undefined],
      ['tomato', [{ text: 'tomato', ipa: 'təˈmɑːtoʊ' }]],
      ['and', undefined],
      ['potato', 'pəˈteɪtoʊ'],
    ]);
  });
});

describe('IPA to an English respelling', () => {
  it('spells each phoneme the English way and joins syllables with hyphens', () => {
    const cases: readonly [string, string][] = [
      ['təˈmeɪtoʊ', 'tuh-may-toh'],
      ['təˈmɑːtoʊ', 'tuh-mah-toh'],
      ['ʃɪˈvɔːn', 'shi-vawn'],
      ['ˈθɪŋkɪŋ', 'thing-king'],
      ['nuː jˈɔːɹk', 'noo york'],
      ['ˈdʒɑːvə', 'jah-vuh'],
      ['ˈbʌtn̩', 'buh-tuhn'],
      ['kæt', 'kat'],
    ];
    for (const [from, to] of cases) assert.equal(ipaToRespelling(from), to, from);
  });
});
