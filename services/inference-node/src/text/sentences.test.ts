import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkSentence } from './chunks.js';
import { splitSentences } from './sentences.js';

/** [input, expected sentences] */
const CASES: readonly (readonly [string, readonly string[]])[] = [
  ['Hello world. How are you? Fine!', ['Hello world.', 'How are you?', 'Fine!']],
  ['Dr. Smith arrived. He sat down.', ['Dr. Smith arrived.', 'He sat down.']],
  ['Mr. and Mrs. Smith left. Prof. Jones stayed.', ['Mr. and Mrs. Smith left.', 'Prof. Jones stayed.']],
  ['Pi is 3.14. Yes!', ['Pi is 3.14.', 'Yes!']],
  ['J. R. R. Tolkien wrote books. He died.', ['J. R. R. Tolkien wrote books.', 'He died.']],
  ['John F. Kennedy spoke. Then he left.', ['John F. Kennedy spoke.', 'Then he left.']],
  ['plan B. The end.', ['plan B.', 'The end.']],
  ['Visit example.com. Then leave.', ['Visit example.com.', 'Then leave.']],
  ['See https://example.com/a.b?x=1. Done.', ['See https://example.com/a.b?x=1.', 'Done.']],
  ['Mail a.b@c.org now. Ok?', ['Mail a.b@c.org now.', 'Ok?']],
  ['Wait... What? No!', ['Wait...', 'What?', 'No!']],
  ['Wait\u2026 what is it?', ['Wait\u2026 what is it?']],
  ['Really?! Yes.', ['Really?!', 'Yes.']],
  ['He said "Stop!" and left.', ['He said "Stop!" and left.']],
  ['"Stop!" He left.', ['"Stop!"', 'He left.']],
  ['"Where are you?" she asked.', ['"Where are you?" she asked.']],
  ['\u201CGo home.\u201D Then silence.', ['\u201CGo home.\u201D', 'Then silence.']],
  ['(Yes.) Next one.', ['(Yes.)', 'Next one.']],
  ['I live in the U.S. The weather is nice.', ['I live in the U.S.', 'The weather is nice.']],
  ['The U.S. Army is big.', ['The U.S. Army is big.']],
  ['Apples, pears, etc. Then we left.', ['Apples, pears, etc.', 'Then we left.']],
  ['It is 5 p.m. Then dinner.', ['It is 5 p.m.', 'Then dinner.']],
  ['Apple Inc. Chief Tim Cook spoke.', ['Apple Inc. Chief Tim Cook spoke.']],
  ['See No. 5 and Fig. 3 here.', ['See No. 5 and Fig. 3 here.']],
  ['Born Jan. 5, 2024. Fine.', ['Born Jan. 5, 2024.', 'Fine.']],
  ['I scored 5. Then I left.', ['I scored 5.', 'Then I left.']],
  ['1. First item', ['1. First item']],
  ['e.g. this one. And that.', ['e.g. this one.', 'And that.']],
  ['Line one\nLine two', ['Line one', 'Line two']],
  ['the quick brown\nfox jumps.', ['the quick brown fox jumps.']],
  ['Para one.\n\nPara two', ['Para one.', 'Para two']],
  ['Title\r\n\r\nBody text here.', ['Title', 'Body text here.']],
  ['No terminal punctuation', ['No terminal punctuation']],
  ['\u4F60\u597D\u3002\u4E16\u754C\uFF01', ['\u4F60\u597D\u3002', '\u4E16\u754C\uFF01']],
  ['Bonjour. \u00C7a va?', ['Bonjour.', '\u00C7a va?']],
  ['Hello!!! \u{1F600} Bye.', ['Hello!!!', '\u{1F600} Bye.']],
  ['Hello. ... World.', ['Hello.', 'World.']],
  ['', []],
  ['   \n\t  ', []],
  ['?!... ;;', []],
  ['\u{1F600}\u{1F389}', []],
];

for (const [input, expected] of CASES) {
  test(`splitSentences(${JSON.stringify(input)})`, () => {
    assert.deepEqual(splitSentences(input), expected);
  });
}

const LONG = 'In the beginning, when the world was young and the rivers ran clear, a band of travelers set out '
  + 'from the coast; they carried little more than hope, a few tools, and stories of their grandparents, and they walked '
  + 'for many days before they found the place where they would build their first village.';

test('long sentences are cut at clause boundaries and stay within the limit', () => {
  const chunks = splitSentences(LONG, { maxChunkChars: 120 });
  assert.ok(chunks.length > 1);
  for (const chunk of chunks) assert.ok(chunk.length <= 120, `${chunk.length}: ${chunk}`);
  assert.ok(chunks[0]!.endsWith(';'), `first chunk should end at the semicolon: ${chunks[0]}`);
  assert.equal(chunks.join(' '), LONG);
});

test('cuts prefer ; : and dashes over commas, commas over spaces', () => {
  assert.deepEqual(chunkSentence('alpha beta, gamma delta; epsilon zeta eta', 30), ['alpha beta, gamma delta;', 'epsilon zeta eta']);
  assert.deepEqual(chunkSentence('alpha beta gamma, delta epsilon zeta eta', 30), ['alpha beta gamma,', 'delta epsilon zeta eta']);
  assert.deepEqual(chunkSentence('alpha beta gamma delta epsilon zeta eta', 30), ['alpha beta gamma delta epsilon', 'zeta eta']);
  assert.deepEqual(chunkSentence('first part\u2014second part here', 20), ['first part\u2014', 'second part here']);
});

test('commas inside numbers and colons inside times are not clause boundaries', () => {
  assert.deepEqual(chunkSentence('pay 1,234,567 at 10:30 today ok', 16), ['pay 1,234,567 at', '10:30 today ok']);
});

test('words are never cut unless a single word is longer than the limit', () => {
  const text = 'supercalifragilistic is a word and so is antidisestablishmentarianism indeed';
  const chunks = splitSentences(text, { maxChunkChars: 30 });
  for (const chunk of chunks) {
    assert.ok(chunk.length <= 30);
    for (const word of chunk.split(' ')) assert.ok(text.split(' ').includes(word), `cut word: ${word}`);
  }
  assert.equal(chunks.join(' '), text);
});

test('a word longer than the limit is cut at character boundaries, never inside a surrogate pair', () => {
  const word = '\u{1F600}'.repeat(10);
  const chunks = chunkSentence(word, 5);
  for (const chunk of chunks) {
    assert.ok(chunk.length <= 5);
    assert.ok(!/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(chunk), `split surrogate in ${JSON.stringify(chunk)}`);
  }
  assert.equal(chunks.join(''), word);
});

test('maxChunkChars must be a finite number of at least 1', () => {
  assert.throws(() => splitSentences('Hi.', { maxChunkChars: 0 }), RangeError);
  assert.throws(() => splitSentences('Hi.', { maxChunkChars: Number.NaN }), RangeError);
  assert.deepEqual(splitSentences('Hi there.', { maxChunkChars: 6.9 }), ['Hi', 'there.']);
});
