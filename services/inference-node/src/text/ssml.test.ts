import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSsml } from '@tts/common';
import { sayAsWords, ssmlPieces, type SpeechPiece } from './ssml.js';

const pieces = (ssml: string, phonemes = false): SpeechPiece[] => ssmlPieces(parseSsml(ssml), { phonemes });

describe('sayAsWords', () => {
  it('reads every interpret-as kind', () => {
    assert.equal(sayAsWords('characters', 'AB1'), 'ay bee one');
    assert.equal(sayAsWords('cardinal', '1,234'), 'one thousand two hundred thirty-four');
    assert.equal(sayAsWords('ordinal', '3rd'), 'third');
    assert.equal(sayAsWords('ordinal', '21'), 'twenty-first');
    assert.equal(sayAsWords('telephone', '+1 (555) 123-4567'), 'plus one, five five five, one two three, four five six seven');
    assert.equal(sayAsWords('date', '12/25/2024', 'mdy'), 'December twenty-fifth, twenty twenty-four');
    assert.equal(sayAsWords('date', '25.12.2024', 'dmy'), 'December twenty-fifth, twenty twenty-four');
    assert.equal(sayAsWords('date', '2024-03', 'ym'), 'March twenty twenty-four');
    assert.equal(sayAsWords('date', '1999', 'y'), 'nineteen ninety-nine');
  });
});

describe('ssmlPieces', () => {
  it('keeps inline <say-as> and <sub> inside their sentence, normalized like plain text', () => {
    assert.deepEqual(pieces('<speak>Call <say-as interpret-as="characters">IBM</say-as> at <sub alias="noon">12</sub> today.</speak>'), [
      { kind: 'speech', text: 'Call eye bee em at noon today.', rate: 1, pitch: 1 },
    ]);
  });

  it('turns breaks into silences (consecutive ones add up) between speech pieces', () => {
    assert.deepEqual(pieces('<speak>One.<break time="1s"/><break time="500ms"/>Two.</speak>'), [
      { kind: 'speech', text: 'One.', rate: 1, pitch: 1 },
      { kind: 'silence', seconds: 1.5 },
      { kind: 'speech', text: 'Two.', rate: 1, pitch: 1 },
    ]);
  });

  it('gives each prosody run its rate and pitch', () => {
    const out = pieces('<speak>Normal <prosody rate="slow" pitch="high">slow and high</prosody> normal again</speak>');
    assert.deepEqual(out.map((p) => (p.kind === 'speech' ? [p.text, p.rate, p.pitch] : p.kind)), [
      ['Normal', 1, 1],
      ['slow and high', 0.75, 1.1],
      ['normal again', 1, 1],
    ]);
  });

  it('splits at <p> and <s> edges', () => {
    assert.deepEqual(pieces('<speak><s>first part</s><s>second part</s></speak>').map((p) => (p.kind === 'speech' ? p.text : p.kind)), ['first part', 'second part']);
  });

  it('gives <phoneme> IPA to engines that take it, its text to the others', () => {
    const doc = '<speak>I say <phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme> here</speak>';
    assert.deepEqual(pieces(doc, true), [
      { kind: 'speech', text: 'I say', rate: 1, pitch: 1 },
      { kind: 'speech', text: 'tomato', rate: 1, pitch: 1, phonemes: 'təˈmɑːtoʊ' },
      { kind: 'speech', text: 'here', rate: 1, pitch: 1 },
    ]);
    assert.deepEqual(pieces(doc, false), [{ kind: 'speech', text: 'I say tomato here', rate: 1, pitch: 1 }]);
  });

  it('drops a break of strength none and reads markup only as markup', () => {
    assert.deepEqual(pieces('<speak>a &lt; b<break strength="none"/></speak>'), [{ kind: 'speech', text: 'a is less than b', rate: 1, pitch: 1 }]);
  });
});
