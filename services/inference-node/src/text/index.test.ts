import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeText, numberToWords, prepareText, splitSentences } from './index.js';

/** [input, expected chunks] with the default options. */
const CASES: readonly (readonly [string, readonly string[]])[] = [
  ['', []],
  ['   \n\t  ', []],
  ['\u{1F600}\u{1F389}\u{1F44D}\u{1F3FD}', []],
  ['?!... --- ;;', []],
  ['$0.99', ['ninety-nine cents']],
  ['1.5 million', ['one point five million']],
  ['3/4', ['three quarters']],
  ['I have 2 cats and 10 dogs.', ['I have two cats and ten dogs.']],
  [
    'Dr. Smith paid $12.50 on Jan. 5, 2024. He left at 3:30 pm!',
    ['Doctor Smith paid twelve dollars and fifty cents on January fifth, twenty twenty-four.', 'He left at three thirty PM!'],
  ],
  ['He lives on Main St. The house is red.', ['He lives on Main Street.', 'The house is red.']],
  ['I live in the U.S. The U.S. Army is big.', ['I live in the US.', 'The US Army is big.']],
  ['Read https://example.com/docs. Then mail a.b@c.org.', ['Read example dot com slash docs.', 'Then mail a dot b at c dot org.']],
  ['I love it \u{1F600} so much!', ['I love it so much!']],
  ['He said \u201Cbonjour\u201D and \u4F60\u597D to 3 people.', ['He said "bonjour" and \u4F60\u597D to three people.']],
  ['Heading\n\nFirst paragraph. Second sentence', ['Heading', 'First paragraph.', 'Second sentence']],
];

for (const [input, expected] of CASES) {
  test(`prepareText(${JSON.stringify(input)})`, () => {
    assert.deepEqual(prepareText(input), expected);
  });
}

test('normalize: false only cleans and splits', () => {
  assert.deepEqual(prepareText('Dr. Smith paid $5.  Then\u0000 left.', { normalize: false }), ['Dr. Smith paid $5.', 'Then left.']);
});

test('other languages are split and cleaned but not expanded', () => {
  assert.deepEqual(prepareText('Le prix est 5 €. Merci.', { language: 'fr-FR' }), ['Le prix est 5 €.', 'Merci.']);
  assert.deepEqual(prepareText('\u3053\u308C\u306F\u30DA\u30F3\u3067\u3059\u3002\u672C\u3067\u3059\uFF01', { language: 'ja' }), [
    '\u3053\u308C\u306F\u30DA\u30F3\u3067\u3059\u3002', '\u672C\u3067\u3059\uFF01',
  ]);
});

test('chunks respect maxChunkChars even when normalization makes a sentence longer', () => {
  const text = 'Totals: 1,234,567; 2,345,678; 3,456,789, and 4,567,890 items.';
  const chunks = prepareText(text, { maxChunkChars: 60 });
  assert.ok(chunks.length > 1);
  for (const chunk of chunks) assert.ok(chunk.length <= 60, `${chunk.length}: ${chunk}`);
  assert.ok(chunks.join(' ').startsWith('Totals: one million two hundred thirty-four thousand'));
});

test('a very long word is cut to the limit instead of producing an oversized chunk', () => {
  const chunks = prepareText(`${'x'.repeat(50)} end`, { maxChunkChars: 20 });
  assert.deepEqual(chunks.map((c) => c.length), [20, 20, 14]);
  assert.equal(chunks.join('').replace(' ', ''), `${'x'.repeat(50)}end`);
});

const LONG_FIRST = 'When the committee finally met after months of delays and postponements, the members agreed that '
  + 'the proposal needed more work, so they sent it back to the drafting group with a long list of questions.';

test('a long first sentence is cut at a clause boundary for fast first audio', () => {
  const chunks = prepareText(`${LONG_FIRST} Short second.`);
  assert.equal(chunks[0], 'When the committee finally met after months of delays and postponements,');
  assert.ok(chunks[1]!.startsWith('the members agreed'));
  assert.equal(chunks.at(-1), 'Short second.');
  assert.equal(chunks.join(' '), `${LONG_FIRST} Short second.`);
});

test('the first chunk is not cut at plain spaces or into a clipped head', () => {
  const noClause = 'word '.repeat(40).trim();
  assert.deepEqual(prepareText(noClause), [noClause]);
  const earlyComma = `Well, ${'word '.repeat(40).trim()}`;
  assert.deepEqual(prepareText(earlyComma), [earlyComma]);
});

test('with cutAtWord, a first chunk without a clause boundary in bounds is cut at its last fitting word', () => {
  const options = { firstChunkMaxChars: 32, firstChunkMinChars: 12, firstChunkCutAtWord: true };
  const paragraph = 'The weather today is sunny with a light breeze, and the forecast looks pleasant.';
  const chunks = prepareText(paragraph, options);
  assert.equal(chunks[0], 'The weather today is sunny with');
  assert.ok(chunks[0]!.length <= 32);
  assert.equal(chunks.join(' '), paragraph);
  // a clause boundary within the bounds still wins
  assert.equal(prepareText('Well then, my friends, the time has come to speak of many things.', options)[0], 'Well then, my friends,');
  // a single long word is never cut into pieces
  const long = `${'x'.repeat(40)} tail words here.`;
  assert.equal(prepareText(long, options)[0], long);
});

test('prepareText rejects a limit below one character', () => {
  assert.throws(() => prepareText('Hi.', { maxChunkChars: 0 }), RangeError);
  assert.throws(() => prepareText('Hi.', { maxChunkChars: Number.POSITIVE_INFINITY }), RangeError);
});

/** Deterministic pseudo-random generator (mulberry32) so the fuzz test is reproducible. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = [
  ...'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ 0123456789 .,;:!?-$%&/@#()\'"', '\n', '\n\n', '\u2026', '\u2014',
  '\u{1F600}', '\u00E9', '\u4F60', 'Dr.', 'U.S.', '3.14', '$12.50', '1,234', 'e.g.', 'https://a.io/x', '\u0000', '\u200B',
];

test('fuzz: chunks are never empty, never unspeakable and never over the limit', () => {
  const next = random(42);
  for (let round = 0; round < 300; round++) {
    let text = '';
    const length = Math.floor(next() * 120);
    for (let i = 0; i < length; i++) text += ALPHABET[Math.floor(next() * ALPHABET.length)]!;
    const max = 8 + Math.floor(next() * 80);
    for (const normalize of [true, false]) {
      const chunks = prepareText(text, { maxChunkChars: max, normalize });
      for (const chunk of chunks) {
        assert.ok(chunk.length > 0 && chunk.length <= max, `bad chunk ${JSON.stringify(chunk)} for ${JSON.stringify(text)}`);
        assert.equal(chunk, chunk.trim());
        assert.match(chunk, /[\p{L}\p{N}]/u);
      }
    }
  }
});

test('the index re-exports the whole public API', () => {
  assert.equal(numberToWords(21), 'twenty-one');
  assert.equal(normalizeText('5 km'), 'five kilometers');
  assert.deepEqual(splitSentences('A. B.'), ['A. B.']);
});
