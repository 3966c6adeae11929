import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextAligner, alignText, type CharacterTimes } from './alignment.js';

const w = (word: string, startSec: number, endSec: number) => ({ word, startSec, endSec });

/** Each character's [start, end] as "c:start-end". */
const show = (t: CharacterTimes): string[] => t.characters.map((c, i) => `${c}:${t.starts[i]}-${t.ends[i]}`);

describe('alignText', () => {
  it('shares each word over its characters and the gaps over what lies between, up to the end of the audio', () => {
    const { text, normalized } = alignText('Hi, yo.', [w('Hi', 0.1, 0.3), w('yo', 0.5, 0.7)], 1);
    assert.deepEqual(show(text), ['H:0.1-0.2', 'i:0.2-0.3', ',:0.3-0.4', ' :0.4-0.5', 'y:0.5-0.6', 'o:0.6-0.7', '.:0.7-1']);
    assert.deepEqual(show(normalized), ['H:0.1-0.2', 'i:0.2-0.3', ' :0.3-0.5', 'y:0.5-0.6', 'o:0.6-0.7']);
  });

  it('covers every character of the text once, in order, with times that never go back', () => {
    const text = '  The U.S. isn\'t "far" -- 42 miles!';
    const words = [w('The', 0.05, 0.2), w('U.S.', 0.2, 0.6), w("isn't", 0.6, 0.9), w('far', 0.9, 1.2), w('forty-two', 1.25, 1.8), w('miles', 1.8, 2.2)];
    const { text: t } = alignText(text, words, 2.5);
    assert.equal(t.characters.join(''), text);
    for (let i = 0; i < t.characters.length; i++) {
      assert.ok(t.ends[i]! >= t.starts[i]!, `character ${i}`);
      if (i > 0) assert.ok(t.starts[i]! >= t.ends[i - 1]! - 1e-9, `character ${i} starts after ${i - 1} ends`);
    }
    // U.S. spans its own word (punctuation inside a token is part of it), and the unmatched number's
    // characters come with the next word found.
    const at = (c: number): number => t.starts[c]!;
    assert.equal(at(text.indexOf('U')), 0.2);
    assert.ok(t.ends[text.indexOf('S.') + 1]! <= 0.6);
    assert.equal(t.ends.at(-1), 2.5);
    const m = text.indexOf('miles');
    assert.equal(at(m), 1.8);
    assert.ok(at(text.indexOf('42')) >= 1.2 && at(text.indexOf('42')) < 1.8, 'the digits lie in the gap before "miles"');
  });

  it('matches words at the start of tokens only, in any case', () => {
    const { text } = alignText('Scat a cat.', [w('scat', 0, 0.4), w('A', 0.5, 0.6), w('cat', 0.7, 1)], 1);
    assert.equal(text.starts[5], 0.5, '"a" is the token, not the a of "scat"');
    assert.equal(text.starts[7], 0.7);
  });

  it('without words, spreads the text over the audio', () => {
    const { text, normalized } = alignText('Hey', [], 0.3);
    assert.deepEqual(show(text), ['H:0-0.1', 'e:0.1-0.2', 'y:0.2-0.3']);
    assert.deepEqual(normalized.characters, []);
  });
});

describe('TextAligner', () => {
  it('gives the characters batch by batch, as a stream brings the words, and the same in total as alignText', () => {
    const text = 'One two. Three four.';
    const words = [w('One', 0, 0.3), w('two', 0.3, 0.6), w('Three', 1, 1.4), w('four', 1.4, 1.8)];
    const aligner = new TextAligner(text);
    const first = aligner.take(words.slice(0, 2));
    const second = aligner.take(words.slice(2));
    const none = aligner.take([]);
    const rest = aligner.rest(2);
    assert.equal(first.text.characters.join(''), 'One two');
    assert.equal(second.text.characters.join(''), '. Three four');
    assert.equal(none.text.characters.length, 0);
    assert.equal(rest.characters.join(''), '.');
    assert.equal(second.normalized.characters.join(''), ' Three four', 'a space joins the words across batches');
    const whole = alignText(text, words, 2);
    assert.deepEqual([...first.text.starts, ...second.text.starts, ...rest.starts], whole.text.starts);
    assert.deepEqual([...first.normalized.characters, ...second.normalized.characters].join(''), whole.normalized.characters.join(''));
  });

  it('takes text in pieces (a streaming session) as it takes the whole text at once', () => {
    const words = [w('One', 0, 0.3), w('two', 0.3, 0.6), w('Three', 1, 1.4), w('four', 1.4, 1.8)];
    const pieced = new TextAligner();
    pieced.append('One tw');
    const first = pieced.take(words.slice(0, 1));
    pieced.append('o. Three four.');
    const second = pieced.take(words.slice(1));
    const rest = pieced.rest(2);
    const whole = alignText('One two. Three four.', words, 2);
    assert.deepEqual([...first.text.characters, ...second.text.characters, ...rest.characters], whole.text.characters);
    assert.deepEqual([...first.text.starts, ...second.text.starts, ...rest.starts], whole.text.starts);
  });
});
