/**
 * Live mode's typing feed (live-text.ts): what is sent while a text is typed
 * key by key. Words go once the space after them is typed, a sentence end flushes, a pause sends
 * and flushes the rest, nothing is sent twice, and a stop drops what was typed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { TypingFeed, type Piece } from './live-text.js';

/** Types `text` key by key into `feed` after `start`; the pieces sent. */
function typeInto(feed: TypingFeed, start: string, text: string): Piece[] {
  const out: Piece[] = [];
  for (let i = 1; i <= text.length; i++) {
    const p = feed.typed(start + text.slice(0, i));
    if (p) out.push(p);
  }
  return out;
}

describe('live mode typing feed', () => {
  test('words once their space is typed; a sentence end flushes; a pause sends the rest flushed', () => {
    const feed = new TypingFeed('');
    assert.deepEqual(typeInto(feed, '', 'Hello there. How are yo'), [
      { text: 'Hello ', flush: false },
      { text: 'there. ', flush: true },
      { text: 'How ', flush: false },
      { text: 'are ', flush: false },
    ]);
    assert.deepEqual(feed.paused('Hello there. How are yo'), { text: 'yo', flush: true });
    assert.equal(feed.paused('Hello there. How are yo'), undefined, 'nothing waits after a flush');
  });

  test('a new line ends a sentence too; a pause after words already sent flushes them', () => {
    const feed = new TypingFeed('');
    assert.deepEqual(typeInto(feed, '', 'Dear friend\nI '), [
      { text: 'Dear ', flush: false },
      { text: 'friend\n', flush: true },
      { text: 'I ', flush: false },
    ]);
    assert.deepEqual(feed.paused('Dear friend\nI '), { text: '', flush: true });
  });

  test('text there before live mode began is not spoken; a stop drops what was typed', () => {
    const feed = new TypingFeed('Old text. ');
    assert.deepEqual(typeInto(feed, 'Old text. ', 'New '), [{ text: 'New ', flush: false }]);
    typeInto(feed, 'Old text. New ', 'words not spoken');
    feed.restart('Old text. New words not spoken');
    assert.equal(feed.paused('Old text. New words not spoken'), undefined);
    assert.deepEqual(feed.typed('Old text. New words not spoken again '), { text: ' again ', flush: false });
  });

  test('a change to text already sent is sent as new text from where it differs', () => {
    const feed = new TypingFeed('');
    typeInto(feed, '', 'I like cats ');
    assert.deepEqual(feed.typed('I like dogs '), { text: 'dogs ', flush: false });
  });

  test('typed without edits, the pieces (and a final pause) are exactly the text, each sent once', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', ' ', '.', '!', '\n', 'é'), { maxLength: 60 }), (keys) => {
        const text = keys.join('');
        const feed = new TypingFeed('');
        const pieces = typeInto(feed, '', text);
        const last = feed.paused(text);
        if (last) pieces.push(last);
        assert.equal(pieces.map((p) => p.text).join(''), text);
        assert.ok(pieces.every((p) => p.text !== '' || p.flush));
      }),
    );
  });
});
