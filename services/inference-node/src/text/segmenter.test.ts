import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TextSegmenter, type TextSegment } from './segmenter.js';

/** Pushes `text` `size` words at a time (a language model's pace); returns the pieces and after which push each came. */
function feedWords(segmenter: TextSegmenter, text: string, size = 2): { pieces: string[]; at: number[]; all: TextSegment[] } {
  const words = text.split(/(?<= )/);
  const pieces: string[] = [];
  const at: number[] = [];
  const all: TextSegment[] = [];
  for (let i = 0; i < words.length; i += size) {
    for (const s of segmenter.push(words.slice(i, i + size).join(''))) {
      pieces.push(s.text);
      at.push(i + size);
      all.push(s);
    }
  }
  return { pieces, at, all };
}

describe('TextSegmenter', () => {
  test('two words at a time: the first clause goes out as soon as its comma and space arrive, then sentences', () => {
    const s = new TextSegmenter();
    const text = 'Thanks for calling the support line, my name is Ava. How can I help you today? I can check';
    const { pieces, at } = feedWords(s, text);
    assert.deepEqual(pieces, ['Thanks for calling the support line,', 'my name is Ava.', 'How can I help you today?']);
    // "Thanks for calling the support line, " is the first six words: out after the third push.
    assert.equal(at[0], 6);
    assert.equal(s.flush()?.text, 'I can check');
  });

  test('a sentence end waits for the next word (abbreviations and initials are not cut)', () => {
    const s = new TextSegmenter();
    assert.deepEqual(s.push('I met Dr. '), []);
    assert.deepEqual(s.push('Smith today. '), [], 'neither "Dr." nor the unconfirmed end');
    assert.deepEqual(s.push('He').map((x) => x.text), ['I met Dr. Smith today.']);
    assert.deepEqual(s.push(' lives in the U.S. The weather').map((x) => x.text), ['He lives in the U.S.']);
    assert.deepEqual(s.push(' is 3.5 degrees.').map((x) => x.text), [], 'no cut inside a decimal, nor at the unconfirmed end');
  });

  test('later pieces are cut at a clause only past clauseMinChars', () => {
    const s = new TextSegmenter({ firstClauseMinChars: 5, clauseMinChars: 40 });
    assert.deepEqual(s.push('Well, then. A short clause, and a much longer one that goes on, and on. ').map((x) => x.text), [
      'Well,',
      'then.',
      'A short clause, and a much longer one that goes on,',
    ]);
  });

  test('a blank line ends a piece; text with no boundary is cut at a space past maxChars', () => {
    const s = new TextSegmenter({ maxChars: 30 });
    assert.deepEqual(s.push('Heading\n\nbody').map((x) => x.text), ['Heading']);
    const long = 'word '.repeat(20);
    const pieces = s.push(long);
    assert.ok(pieces.length >= 2, `cut into ${pieces.length}`);
    for (const p of pieces) assert.ok(p.text.length <= 30, p.text);
  });

  test('characters add up: pieces plus what is buffered equal what was pushed, one character at a time', () => {
    const s = new TextSegmenter();
    const text = 'One, two, three, four, five, six. Seven eight nine ten eleven, twelve.  Thirteen!\n\nFourteen';
    let chars = 0;
    for (const ch of text) for (const p of s.push(ch)) chars += p.chars;
    assert.ok(chars > 0);
    assert.equal(chars + s.buffered, text.length);
    const rest = s.flush();
    assert.equal(chars + (rest?.chars ?? 0), text.length);
    assert.equal(s.buffered, 0);
    assert.equal(s.flush(), undefined);
  });

  test('clear drops the buffer and says how much', () => {
    const s = new TextSegmenter();
    s.push('Half a sent');
    assert.equal(s.clear(), 11);
    assert.equal(s.buffered, 0);
  });
});
